import * as path from 'node:path';

import { DataSource } from 'typeorm';

import { eventLogDigest } from '@libs/evidence-trail';
import { ingestStack } from '@libs/stack-ingestion';
import { Episode, StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { EpisodeCallLog } from '../episode-call-log';
import { AuditTrailRepository } from './audit-trail.repository';
import { EpisodeCallRepository } from './episode-call.repository';
import { PostgresEpisodeStore } from './postgres-episode.store';

/**
 * An episode's evidence as the store keeps it: who started it, its log and calls committed to when it ends (graded or
 * not), and rows the app's own connection cannot change or remove. Real: PostgreSQL with the committed migrations, the
 * engine on the example procurement stack, the call log. Mocked: nothing.
 */
describe('episode evidence in PostgreSQL', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let engine: TwinEngine;
  let calls: EpisodeCallLog;
  let version: string;
  const trail = () => new AuditTrailRepository(dataSource);

  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection, as the embedded PGlite gives: a query that forgets the transaction it runs in waits forever.
    dataSource = createDataSource(database.url, { poolSize: 1 });
    await dataSource.initialize();
    const ingested = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../../examples/acme-procurement'),
    });
    version = ingested.version;
    calls = new EpisodeCallLog(new EpisodeCallRepository(dataSource), (message) => {
      throw new Error(message);
    });
    engine = new TwinEngine(
      new PostgresEpisodeStore(dataSource),
      new StaticStackSource(ingested.model),
      new Map(),
      {},
      calls,
    );
  });

  afterAll(async () => {
    await calls.close();
    await dataSource.destroy();
    await database.drop();
  });

  const read = (episode: Episode, page: number) =>
    episode.handle(
      'procurement',
      {
        method: 'GET',
        path: '/suppliers',
        query: new URLSearchParams({ page: String(page) }),
        headers: { authorization: `Bearer ${episode.agentTokenFor('procurement') ?? ''}` },
      },
      `http://twin/suppliers?page=${page}`,
    );

  it('names who started or forked an episode, or set its faults, and Mirror itself only when nobody is known', async () => {
    const started = await engine.createEpisode({
      tenantId: 'north',
      stackVersion: version,
      seed: 3,
      startedBy: { actor: 'key:k1', actorKind: 'trainer' },
    });
    const fork = await engine.fork('north', started.id, undefined, {
      actor: 'rollout:r1',
      actorKind: 'system',
      rolloutId: 'r1',
    });
    const unnamed = await engine.createEpisode({ tenantId: 'north', stackVersion: version, seed: 3 });

    const startOf = async (id: string) => (await trail().forSubject('north', 'episode', id))[0];
    expect(await startOf(started.id)).toMatchObject({
      action: 'episode.created',
      actor: 'key:k1',
      actorKind: 'trainer',
    });
    expect(await startOf(fork.id)).toMatchObject({
      action: 'episode.forked',
      actor: 'rollout:r1',
      details: expect.objectContaining({ rolloutId: 'r1' }),
    });
    // A rollout's evidence carries the starts of its trials' episodes.
    expect((await trail().forSubject('north', 'rollout', 'r1')).map((e) => e.subject.id)).toEqual([fork.id]);
    expect(await startOf(unnamed.id)).toMatchObject({ actor: 'mirror:twins', actorKind: 'system' });

    // Faults change what the agent meets and leave no event: each change is an entry, with who made it.
    await engine.setFaults(
      'north',
      started.id,
      { services: { procurement: { errorRate: 0.5 } } },
      {
        actor: 'operator-key',
        actorKind: 'admin',
      },
    );
    await engine.setFaults('north', started.id, undefined);
    const faults = (await trail().forSubject('north', 'episode', started.id)).filter(
      (e) => e.action === 'episode.faults_set',
    );
    expect(faults.map((e) => [e.actor, e.details.faults])).toEqual([
      ['operator-key', { services: { procurement: { errorRate: 0.5 } } }],
      ['mirror:twins', null],
    ]);
  });

  it('commits to the log and every call answered before an episode ends, in the same step as its end', async () => {
    const episode = await engine.createEpisode({ tenantId: 'north', stackVersion: version, seed: 4 });
    expect((await read(episode, 1)).status).toBe(200);
    expect((await read(episode, 2)).status).toBe(200);
    // Ended at once: the two reads are still in the call log's buffer (written every half second) until the end.
    await episode.close();

    const ended = (await trail().forSubject('north', 'episode', episode.id)).filter(
      (e) => e.action === 'episode.closed',
    );
    const chain = await new EpisodeCallRepository(dataSource).head('north', episode.id);
    const log = JSON.parse(JSON.stringify(await new PostgresEpisodeStore(dataSource).events('north', episode.id)));
    expect(chain.count).toBe(2);
    expect(ended).toEqual([
      expect.objectContaining({
        actor: 'mirror:twins',
        details: { eventLog: eventLogDigest(log as unknown[]), calls: chain },
        versions: { stack: version, worldSeed: 4 },
      }),
    ]);
    // Ending again changes nothing and commits nothing twice.
    await episode.close();
    expect(
      (await trail().forSubject('north', 'episode', episode.id)).filter((e) => e.action === 'episode.closed'),
    ).toHaveLength(1);
    await expect(trail().verify('north')).resolves.not.toHaveProperty('broken');
  });

  it('refuses UPDATE, DELETE and TRUNCATE of an episode’s log and calls from the app’s connection', async () => {
    const episode = await engine.createEpisode({ tenantId: 'north', stackVersion: version, seed: 5 });
    await read(episode, 1);
    await episode.close();
    const where = `WHERE episode_id = '${episode.id}'`;

    for (const table of ['episode_events', 'episode_calls']) {
      await expect(dataSource.query(`UPDATE ${table} SET at = now() ${where}`)).rejects.toThrow(
        `${table} rows are append-only: UPDATE refused`,
      );
      await expect(dataSource.query(`DELETE FROM ${table} ${where}`)).rejects.toThrow(
        `${table} rows are append-only: DELETE refused`,
      );
      await expect(dataSource.query(`TRUNCATE ${table} CASCADE`)).rejects.toThrow(
        `${table} rows are append-only: TRUNCATE refused`,
      );
    }
    // Nor does an episode go, taking its evidence with it.
    await expect(dataSource.query(`DELETE FROM episodes WHERE id = $1`, [episode.id])).rejects.toThrow(/append-only/);
    const [counts] = await dataSource.query<{ events: string; calls: string }[]>(
      `SELECT (SELECT count(*) FROM episode_events ${where}) AS events, (SELECT count(*) FROM episode_calls ${where}) AS calls`,
    );
    expect({ events: Number(counts.events), calls: Number(counts.calls) }).toEqual({
      events: episode.state.seq,
      calls: 1,
    });
  });
});
