import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';
import { ingestStack } from '@libs/stack-ingestion';
import {
  EpisodeNotInTenantError,
  EpisodeState,
  EventSequenceConflictError,
  LoggedEvent,
  StaticStackSource,
  TwinEngine,
} from '@libs/twin-engine';

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

  it('refuses events whose numbers are taken, storing none of them, and two copies of an episode both write', async () => {
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../../examples/acme-procurement'),
    });
    // Two gateways holding the same episode (one an agent failed over to, while the other still holds its copy),
    // each checking its copy against the log before every request.
    const gateway = () => new TwinEngine(sut, new StaticStackSource(model), new Map(), { recheckAfterMs: 0 });
    const [one, two] = [gateway(), gateway()];
    const first = await one.createEpisode({ tenantId: 'test', stackVersion: version, seed: 9 });
    const at = (held: TwinEngine) => held.episode('test', first.id);
    const table = 'procurement/suppliers';
    const template = first.state.get(table, first.state.ids(table)[0]) as Record<string, unknown>;

    expect(await (await at(one)).seedRecord(table, 'copy-a', { ...template, id: 'copy-a' })).toBe('created');
    expect(await (await at(two)).seedRecord(table, 'copy-b', { ...template, id: 'copy-b' })).toBe('created');
    expect(await (await at(one)).patchRecord(table, 'copy-b', { name: 'Changed by the first copy' })).toBe('patched');
    // Without the check, a copy behind its log still never forks it: its write's number is taken, so it reads what
    // it missed and decides again.
    const unchecked = await new TwinEngine(sut, new StaticStackSource(model)).episode('test', first.id);
    expect(await (await at(one)).seedRecord(table, 'copy-c', { ...template, id: 'copy-c' })).toBe('created');
    expect(await unchecked.patchRecord(table, 'copy-a', { name: 'Changed by a copy behind' })).toBe('patched');
    const second = await at(two);

    const log = await sut.events('test', first.id);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    expect(log.slice(-5).map((e) => (e.event as { id?: string }).id)).toEqual([
      'copy-a',
      'copy-b',
      'copy-b',
      'copy-c',
      'copy-a',
    ]);
    expect(second.state.get(table, 'copy-c')).toBeDefined();
    const rebuilt = await new TwinEngine(sut, new StaticStackSource(model)).episode('test', first.id);
    expect(rebuilt.state.get(table, 'copy-b')).toMatchObject({ name: 'Changed by the first copy' });
    expect(rebuilt.state.get(table, 'copy-a')).toMatchObject({ name: 'Changed by a copy behind' });
    expect(unchecked.state.get(table, 'copy-c')).toBeDefined();

    const [taken] = log.slice(-1);
    const stale: LoggedEvent[] = [
      { ...taken, event: { type: 'record.deleted', table, id: 'copy-a' } },
      { ...taken, seq: taken.seq + 1, event: { type: 'record.deleted', table, id: 'copy-b' } },
    ];
    await expect(sut.append('test', first.id, stale)).rejects.toThrow(EventSequenceConflictError);
    expect(await sut.events('test', first.id)).toEqual(log);
  });
});
