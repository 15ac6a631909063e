import { randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import { verifyEvidenceBundle } from '@libs/evidence-trail';
import type { Grade } from '@libs/graders';
import {
  AuditTrailRepository,
  createDataSource,
  EpisodeCallLog,
  EpisodeCallRepository,
  EpisodeCallRow,
  PostgresEpisodeStore,
  scenarioDigestOf,
  StackRepository,
} from '@libs/persistence';
import type { StackModel } from '@libs/stack-ingestion';
import type { ObservedCall } from '@libs/twin-engine';
import { createTestDatabase } from '@test/support/test-services';

import { driftedEpisodes, exportEvidence, recordEpisodeGrade, unvouchedCalls } from './episode-evidence';

const read = (episodeId: string, n: number, tenantId = 'north'): ObservedCall => ({
  tenantId,
  episodeId,
  afterSeq: 0,
  at: `2026-06-01T09:00:0${n}.000Z`,
  service: 'erp',
  method: 'GET',
  path: `/suppliers?page=${n}`,
  operationId: 'listSuppliers',
  status: 200,
  actor: 'E1',
});

const grade: Grade = {
  graderVersion: 'g1',
  policies: ['p@1'],
  status: 'graded',
  reward: 1,
  passed: true,
  breakdown: { outcome: 1, milestones: 1, penalty: 1 },
  violations: { critical: 0, major: 0, minor: 0 },
  verdicts: [],
  steps: [],
  infrastructure: [],
};

/**
 * Reads leave no event in the log, but an episode's grading entry commits to them: an edited, deleted or reordered
 * call row is found by `audit verify --deep` (named by its place and row) and a bundle carrying a changed call fails
 * offline. Real: PostgreSQL with the committed migrations, the call log, the evidence trail. Mocked: nothing.
 */
describe(driftedEpisodes.name, () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  /** A new episode with five reads recorded (in two batches), not yet ended nor graded. */
  const openEpisode = async (): Promise<string> => {
    const episodeId = randomUUID();
    await dataSource.query(
      `INSERT INTO episodes (id, tenant_id, stack_version, seed, secret, sizes) VALUES ($1, 'north', $2, 1, 's', '{}')`,
      [episodeId, 'a'.repeat(64)],
    );
    const log = new EpisodeCallLog(new EpisodeCallRepository(dataSource), (message) => {
      throw new Error(message);
    });
    [1, 2, 3].forEach((n) => log.observe(read(episodeId, n)));
    await log.flush();
    [4, 5].forEach((n) => log.observe(read(episodeId, n)));
    // Another tenant naming this episode stores nothing and takes no place in its chain.
    log.observe(read(episodeId, 9, 'south'));
    await log.close();
    return episodeId;
  };

  /** A new episode with five reads recorded and graded: each case changes its own. */
  const gradedEpisode = async (): Promise<string> => {
    const episodeId = await openEpisode();
    await recordEpisodeGrade(dataSource, { tenant: 'north', episodeId, grade, agent: 'diligent', versions: {} });
    return episodeId;
  };

  /** A new episode with five reads recorded, then ended (its log's end stored), and never graded. */
  const endedEpisode = async (): Promise<string> => {
    const episodeId = await openEpisode();
    await new PostgresEpisodeStore(dataSource).append('north', episodeId, [
      { seq: 1, at: '2026-06-01T09:00:10.000Z', operationId: '_mirror.close', event: { type: 'episode.closed' } },
    ]);
    return episodeId;
  };

  const driftOf = async (episodeId: string): Promise<string[]> =>
    (await driftedEpisodes(dataSource, 'north')).filter((d) => d.episodeId === episodeId).map((d) => d.message);

  /**
   * Runs statements as someone who can switch the tables' guard off (the app's connection cannot change these rows).
   */
  const behindTheGuard = async (statements: string[], episodeId: string): Promise<void> => {
    await dataSource.query(`ALTER TABLE episode_calls DISABLE TRIGGER USER`);
    try {
      for (const statement of statements) {
        await dataSource.query(statement, [episodeId]);
      }
    } finally {
      await dataSource.query(`ALTER TABLE episode_calls ENABLE TRIGGER USER`);
    }
  };

  /** What `audit verify --deep` says of a new episode once the statements ran on its calls (`$1`: its id). */
  const tampered = async (...changes: string[]): Promise<string[]> => {
    const episodeId = await gradedEpisode();
    await behindTheGuard(changes, episodeId);
    return driftOf(episodeId);
  };

  it('commits to every call at grading, and finds nothing while they are as written', async () => {
    const episodeId = await gradedEpisode();
    const [entry] = await dataSource.query<{ details: { calls: { count: number } } }[]>(
      `SELECT details FROM audit_entries WHERE subject_id = $1 AND action = 'episode.graded'`,
      [episodeId],
    );
    expect(entry.details.calls.count).toBe(5);
    await expect(new EpisodeCallRepository(dataSource).count('south', episodeId)).resolves.toBe(0);
    await expect(driftOf(episodeId)).resolves.toEqual([]);
  });

  it('names an edited call, a deleted one, a reordering, a cut end and a re-chained rewrite', async () => {
    const where = `episode_id = $1`;
    expect(await tampered(`UPDATE episode_calls SET path = '/suppliers?page=7' WHERE ${where} AND n = 2`)).toEqual([
      expect.stringMatching(
        /calls are not the ones entry \d+ recorded at grading: call 2 \(row \d+, GET erp\) does not match its hash/,
      ),
    ]);
    expect(await tampered(`DELETE FROM episode_calls WHERE ${where} AND n = 3`)).toEqual([
      expect.stringMatching(/call 3 is missing: call 2 is followed by call 4/),
    ]);
    // Two calls swapped: each sits at the other's place.
    expect(
      await tampered(
        `UPDATE episode_calls SET n = -4 WHERE ${where} AND n = 4`,
        `UPDATE episode_calls SET n = 4 WHERE ${where} AND n = 5`,
        `UPDATE episode_calls SET n = 5 WHERE ${where} AND n = -4`,
      ),
    ).toEqual([expect.stringMatching(/call 4 \(row \d+, GET erp\) does not match its hash/)]);
    expect(await tampered(`DELETE FROM episode_calls WHERE ${where} AND n >= 4`)).toEqual([
      expect.stringMatching(/calls 4–5 are missing: 5 were recorded, 3 remain/),
    ]);
    // Whoever deletes a call and chains the rest again consistently still cannot match what the entry holds.
    const episodeId = await gradedEpisode();
    const calls = new EpisodeCallRepository(dataSource);
    const kept = (await calls.chain('north', episodeId)).filter((c) => c.n !== 2);
    await behindTheGuard([`DELETE FROM episode_calls WHERE episode_id = $1`], episodeId);
    await calls.append(
      'north',
      kept.map(({ call: { n: _n, ...call } }) => call as unknown as EpisodeCallRow),
    );
    expect(await driftOf(episodeId)).toEqual([
      expect.stringMatching(
        /^episode .*'s calls are not the ones entry \d+ recorded at grading: call 5 is missing: 5 were recorded, 4 remain$/,
      ),
    ]);
  });

  it('exports the calls the grading committed to; a bundle with one changed or dropped fails offline', async () => {
    const episodeId = await gradedEpisode();
    const bundle = (await exportEvidence(dataSource, 'north', { kind: 'episode', id: episodeId }))!;
    expect(bundle.episodes[0].calls).toHaveLength(5);
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    const changed = structuredClone(bundle);
    (changed.episodes[0].calls![1] as { path: string }).path = '/suppliers?page=7';
    expect(verifyEvidenceBundle(changed)).toEqual(
      expect.arrayContaining([
        { pointer: '/episodes/0/calls', message: expect.stringMatching(/calls are not the 5 its grading recorded/) },
      ]),
    );
    const dropped = structuredClone(bundle);
    dropped.episodes[0].calls!.splice(4, 1);
    expect(verifyEvidenceBundle(dropped).map((p) => p.pointer)).toContain('/episodes/0/calls');
  });

  it('commits to the calls of an episode that ended and was never graded, and finds one changed since', async () => {
    const episodeId = await endedEpisode();
    const [entry] = await dataSource.query<{ details: { calls: { count: number } } }[]>(
      `SELECT details FROM audit_entries WHERE subject_id = $1 AND action = 'episode.closed'`,
      [episodeId],
    );
    expect(entry.details.calls.count).toBe(5);
    expect(await driftOf(episodeId)).toEqual([]);
    expect((await unvouchedCalls(dataSource, 'north')).filter((u) => u.episodeId === episodeId)).toEqual([]);

    // Rewritten whole and chained again, as only whoever drops the guard can: the end's commitment no longer holds.
    const calls = new EpisodeCallRepository(dataSource);
    const edited = (await calls.chain('north', episodeId)).map(({ call: { n: _n, ...call } }, i) =>
      i === 1 ? { ...call, path: '/suppliers?page=7' } : call,
    );
    await behindTheGuard([`DELETE FROM episode_calls WHERE episode_id = $1`], episodeId);
    await calls.append('north', edited as unknown as EpisodeCallRow[]);
    expect(await driftOf(episodeId)).toEqual([
      expect.stringMatching(
        /^episode .*'s calls are not the ones entry \d+ recorded at its end: the first 5 calls are not the ones recorded: they were rewritten$/,
      ),
    ]);
    // A bundle of the ended episode carries the calls its end committed to; changed, it fails offline.
    const episodeOnly = await endedEpisode();
    const bundle = (await exportEvidence(dataSource, 'north', { kind: 'episode', id: episodeOnly }))!;
    expect(bundle.episodes[0].calls).toHaveLength(5);
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    (bundle.episodes[0].calls![0] as { status: number }).status = 500;
    expect(verifyEvidenceBundle(bundle).map((p) => p.pointer)).toContain('/episodes/0/calls');
  });

  it('names the calls no entry vouches for yet, and checks them link by link', async () => {
    const open = await openEpisode();
    expect((await unvouchedCalls(dataSource, 'north')).filter((u) => u.episodeId === open)).toEqual([
      { episodeId: open, from: 1, to: 5 },
    ]);
    expect(await driftOf(open)).toEqual([]);
    // Calls answered after grading are on the chain but past what the grading committed to.
    const graded = await gradedEpisode();
    const log = new EpisodeCallLog(new EpisodeCallRepository(dataSource), (message) => {
      throw new Error(message);
    });
    log.observe(read(graded, 6));
    await log.close();
    expect((await unvouchedCalls(dataSource, 'north')).filter((u) => u.episodeId === graded)).toEqual([
      { episodeId: graded, from: 6, to: 6 },
    ]);

    await behindTheGuard([`UPDATE episode_calls SET status = 404 WHERE episode_id = $1 AND n = 2`], open);
    expect(await driftOf(open)).toEqual([
      expect.stringMatching(/'s calls, vouched for by no entry: call 2 \(row \d+, GET erp\) does not match its hash/),
    ]);
  });

  it("names the task it graded by the digest of the scenario's stored definition, which its re-ingest keeps", async () => {
    const episodeId = await openEpisode();
    const scenario = { id: 'task', goal: 'a goal', steps: [{ at: 1, say: 'hello' }] };
    const model = { name: 'digest-stack', services: [], scenarios: [{ file: 'scenarios/task.yaml', scenario }] };
    const stack = 'b'.repeat(64);
    await new StackRepository(dataSource).saveVersion('north', stack, model as unknown as StackModel);
    const entry = await recordEpisodeGrade(dataSource, {
      tenant: 'north',
      episodeId,
      grade,
      agent: 'diligent',
      versions: { stack, scenario: 'task', scenarioSeed: 1 },
    });
    // Canonical JSON: the key order the definition was written or stored in does not change its digest.
    const reordered = { steps: [{ say: 'hello', at: 1 }], goal: 'a goal', id: 'task' };
    expect(entry.versions).toMatchObject({ scenario: 'task', scenarioDigest: scenarioDigestOf(reordered) });
    expect(scenarioDigestOf({ ...scenario, goal: 'another goal' })).not.toBe(entry.versions.scenarioDigest);
    // A task the stack version does not hold has no digest to name (nothing is made up).
    const unknown = await recordEpisodeGrade(dataSource, {
      tenant: 'north',
      episodeId,
      grade,
      agent: 'diligent',
      versions: { stack, scenario: 'other', scenarioSeed: 1 },
    });
    expect(unknown.versions).not.toHaveProperty('scenarioDigest');
  });

  it("proves an episode's place in a busy tenant's chain without other episodes' entries, and a changed link fails", async () => {
    const tenant = 'busy';
    const store = new PostgresEpisodeStore(dataSource);
    const episode = async (seed: number): Promise<string> => {
      const id = randomUUID();
      await store.createEpisode({
        id,
        tenantId: tenant,
        stackVersion: 'c'.repeat(64),
        seed,
        secret: randomUUID(),
        sizes: { recordsPerResource: 1, childrenPerParent: 1 },
      });
      return id;
    };
    const graded = async (id: string) =>
      recordEpisodeGrade(dataSource, { tenant, episodeId: id, grade, agent: 'diligent', versions: {} });
    const exported = await episode(1);
    await graded(exported);
    // Twenty other episodes played and graded after it, before the export.
    const others: string[] = [];
    for (let n = 0; n < 20; n++) {
      others.push(await episode(100 + n));
      await graded(others[n]);
    }
    const bundle = (await exportEvidence(dataSource, tenant, { kind: 'episode', id: exported }))!;
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    expect(bundle.links).toHaveLength(40);
    const text = JSON.stringify(bundle, null, 2);
    for (const other of others) {
      expect(text).not.toContain(other);
    }
    // The same bundle with every link whole, as exports carried them before compact links.
    const chain = await new AuditTrailRepository(dataSource).range(tenant, bundle.entries[0].seq, bundle.head.seq);
    const whole = { ...bundle, links: chain.filter((e) => !bundle.entries.some((own) => own.seq === e.seq)) };
    const sizes = { compact: Buffer.byteLength(text), whole: Buffer.byteLength(JSON.stringify(whole, null, 2)) };
    process.stdout.write(`evidence bundle of 1 episode among 21: ${JSON.stringify(sizes)} bytes\n`);
    expect(sizes.compact).toBeLessThan(sizes.whole);

    const changed = structuredClone(bundle);
    (changed.links[5] as { contentDigest: string }).contentDigest = '0'.repeat(64);
    expect(verifyEvidenceBundle(changed).map((p) => p.pointer)).toEqual(
      expect.arrayContaining(['/links/5', '/signature']),
    );
  });
});
