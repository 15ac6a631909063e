import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';
import { ingestStack } from '@libs/stack-ingestion';
import { EpisodeNotInTenantError, EpisodeState, LoggedEvent, StaticStackSource, TwinEngine } from '@libs/twin-engine';

import { createDataSource } from '../data-source';
import { PostgresEpisodeStore } from './postgres-episode.store';

/**
 * Real: PostgreSQL with the committed migrations, the example procurement stack's twins and world, the engine's fork
 * and rebuild. The 50,000 events are written straight to the store (replay needs no logic, so what made them does
 * not matter) in batches larger than the ~10,900 rows that once passed PostgreSQL's bind-parameter limit.
 */
describe(PostgresEpisodeStore.name, () => {
  const length = 50_000;
  const extra = 10;
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let sut: PostgresEpisodeStore;
  let engine: TwinEngine;
  let sourceId: string;

  /** Records made, changed and deleted in one of the world's tables, with domain events and clock jumps between. */
  const longLog = (table: string, template: Record<string, unknown>, count: number): LoggedEvent[] =>
    Array.from({ length: count }, (_, index): LoggedEvent => {
      const seq = index + 1;
      const id = `long-${Math.floor(index / 4)}`;
      const at = new Date(Date.UTC(2026, 5, 1, 9) + seq * 1000).toISOString();
      const record = { ...template, id, name: `Record ${seq}` };
      switch (index % 4) {
        case 0:
          return {
            seq,
            at,
            operationId: 'create',
            actor: 'E1001',
            event: { type: 'record.created', table, id, record },
          };
        case 1:
          return {
            seq,
            at,
            operationId: 'update',
            actor: 'E1001',
            event: { type: 'record.updated', table, id, record },
          };
        case 2:
          return seq % 3 === 0
            ? { seq, at, operationId: 'delete', event: { type: 'record.deleted', table, id } }
            : { seq, at, operationId: '_mirror.clock', event: { type: 'clock.set', at } };
        default:
          return {
            seq,
            at,
            operationId: 'notify',
            event: { type: 'domain', name: 'record.touched', service: 'procurement', data: { id, seq } },
          };
      }
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    sut = new PostgresEpisodeStore(dataSource);
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../../examples/acme-procurement'),
    });
    engine = new TwinEngine(sut, new StaticStackSource(model));
    const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 5 });
    sourceId = episode.id;
    const table = 'procurement/suppliers';
    const template = episode.state.get(table, episode.state.ids(table)[0]) as Record<string, unknown>;
    const log = longLog(table, template, length + extra);
    // 12,500 rows a statement: past the old limit, and four statements for the whole log.
    for (let start = 0; start < log.length; start += 12_500) {
      await sut.append('test', sourceId, log.slice(start, start + 12_500));
    }
    engine.evict(sourceId);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it('forks at event 50,000 into the state that replaying the first 50,000 events gives', async () => {
    const sourceTail = await sut.events('test', sourceId, { after: length });
    const started = Date.now();
    const fork = await engine.fork('test', sourceId, length);
    const forkMs = Date.now() - started;

    const firstEvents = await sut.events('test', sourceId, { until: length });
    expect(firstEvents).toHaveLength(length);
    const replayed = new EpisodeState(fork.twin.world);
    firstEvents.forEach((event) => replayed.apply(event));
    expect(fork.state.seq).toBe(length);
    expect(fork.state.fingerprint()).toEqual(replayed.fingerprint());
    expect(fork.descriptor.forkedFrom).toEqual({ episodeId: sourceId, seq: length });
    // The fork's log is the source's first 50,000 events, and the source keeps all of its own.
    expect(await sut.events('test', fork.id)).toEqual(firstEvents);
    expect(sourceTail).toHaveLength(extra);

    // It lives on from there on its own: its next event is 50,001, and the source's log is as it was.
    await fork.advanceClock('2027-01-04T09:00:00.000Z');
    expect((await sut.events('test', fork.id, { after: length })).map((e) => e.event)).toEqual([
      { type: 'clock.set', at: '2027-01-04T09:00:00.000Z' },
    ]);
    expect(await sut.events('test', sourceId, { after: length })).toEqual(sourceTail);
    process.stdout.write(`fork at event ${length}: ${forkMs} ms (copy in PostgreSQL, replay of the fork's log)\n`);
  });

  it('forks an episode that is not in memory, and at any earlier event', async () => {
    engine.evict(sourceId);
    const early = await engine.fork('test', sourceId, 12_345);
    const replayed = new EpisodeState(early.twin.world);
    (await sut.events('test', sourceId, { until: 12_345 })).forEach((event) => replayed.apply(event));
    expect(early.state.seq).toBe(12_345);
    expect(early.state.fingerprint()).toEqual(replayed.fingerprint());
    // A fork asked beyond the log starts at its end, and says so.
    const beyond = await engine.fork('test', sourceId, length * 2);
    expect(beyond.descriptor.forkedFrom).toEqual({ episodeId: sourceId, seq: length + extra });
  });

  it('reads only what is new: the events after a sequence number, and a slice between two', async () => {
    const tail = await engine.events('test', sourceId, length - 5);
    expect(tail.map((e) => e.seq)).toEqual(Array.from({ length: 5 + extra }, (_, i) => length - 4 + i));
    const slice = await sut.events('test', sourceId, { after: 100, until: 103 });
    expect(slice.map((e) => e.seq)).toEqual([101, 102, 103]);
    expect(await engine.events('test', sourceId, length + extra)).toEqual([]);
  });

  it('reaches an episode only through its tenant: another reads nothing, writes nothing, forks nothing', async () => {
    const [first] = await sut.events('test', sourceId, { until: 1 });
    const next: LoggedEvent = { ...first, seq: length + extra + 1 };

    await expect(sut.append('other', sourceId, [next])).rejects.toThrow(EpisodeNotInTenantError);
    await expect(
      sut.forkEpisode({
        ...(await sut.findEpisode('test', sourceId))!,
        id: randomUUID(),
        tenantId: 'other',
        forkedFrom: { episodeId: sourceId, seq: 10 },
      }),
    ).rejects.toThrow(EpisodeNotInTenantError);
    await sut.setFaults('other', sourceId, { services: { procurement: { errorRate: 1 } } });

    expect(await sut.findEpisode('other', sourceId)).toBeUndefined();
    expect(await sut.events('other', sourceId, { until: 5 })).toEqual([]);
    expect((await sut.findEpisode('test', sourceId))?.faults).toBeUndefined();
    expect(await sut.events('test', sourceId, { after: length + extra })).toEqual([]);
    const [{ count }] = await dataSource.query<{ count: string }[]>(
      "SELECT count(*) AS count FROM episodes WHERE tenant_id = 'other'",
    );
    expect(count).toBe('0');
  });
});
