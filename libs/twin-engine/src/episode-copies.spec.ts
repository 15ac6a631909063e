import * as path from 'node:path';

import { callEpisode as call } from '@test/support/twin-requests';
import { ingestStack, StackModel } from '@libs/stack-ingestion';

import { Episode } from './episode';
import { LoggedEvent } from './episode-events';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Real: ingestion, world synthesis and two twin engines (two gateways) over one store, holding copies of the same
 * episode, as after a failover while the first gateway still serves: every write lands once, in order, decided on
 * the log as it is; none is lost and the log never forks. The store is in memory (it refuses taken event numbers as
 * PostgreSQL's key does; the persistence tests hold PostgreSQL to the same).
 */
describe('two copies of one episode', () => {
  let model: StackModel;
  let version: string;

  beforeAll(async () => {
    ({ model, version } = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../test/fixtures/fidelity/wire/filter-objects.yaml'),
    }));
  });

  /** A ticket the spec accepts, by its subject. */
  const ticket = (subject: string) => ({ subject, status: 'open', priority: 'low', number: 1 });

  const copies = async (store = new InMemoryEpisodeStore()) => {
    const first = await new TwinEngine(store, new StaticStackSource(model)).createEpisode({
      tenantId: 'test',
      stackVersion: version,
      seed: 3,
      sizes: { recordsPerResource: 2, childrenPerParent: 1 },
    });
    const second = await new TwinEngine(store, new StaticStackSource(model)).episode('test', first.id);
    return { store, first, second };
  };

  it('takes writes from both, each decided on what the other wrote, and rebuilds to the same state', async () => {
    const { store, first, second } = await copies();
    const a = await call(first, 'POST', '/tickets', ticket('from the first'));
    const b = await call(second, 'POST', '/tickets', ticket('from the second'));
    const c = await call(first, 'POST', '/tickets', ticket('the first again'));
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    const ids = [a, b, c].map((r) => (r.body as { id: string }).id);
    expect(new Set(ids).size).toBe(3);

    const log = await store.events('test', first.id);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    // Each copy reads what the other wrote once it has written itself; a copy rebuilt from the log agrees with both.
    const subjects = async (episode: Episode) =>
      ((await call(episode, 'GET', '/tickets')).body as { subject: string }[]).map((t) => t.subject).sort();
    const rebuilt = await new TwinEngine(store, new StaticStackSource(model)).episode('test', first.id);
    expect(await subjects(first)).toEqual(await subjects(rebuilt));
    await call(second, 'POST', '/tickets', ticket('the second again'));
    expect(await subjects(second)).toEqual(
      expect.arrayContaining(['from the first', 'from the second', 'the first again', 'the second again']),
    );
  });

  it('reads a held copy up to its log before answering once it has been unused for recheckAfterMs, not sooner', async () => {
    let now = 0;
    const store = new InMemoryEpisodeStore();
    const reads = jest.spyOn(store, 'events');
    const gateway = new TwinEngine(store, new StaticStackSource(model), new Map(), {
      recheckAfterMs: 1000,
      clock: () => now,
    });
    const elsewhere = new TwinEngine(store, new StaticStackSource(model));
    const episode = await gateway.createEpisode({ tenantId: 'test', stackVersion: version, seed: 4 });
    const other = await elsewhere.episode('test', episode.id);
    const before = episode.state.seq;
    await call(other, 'POST', '/tickets', ticket('written elsewhere'));
    const seen = async () => (await gateway.episode('test', episode.id)).state.seq;

    reads.mockClear();
    now = 999;
    // Used within the window: answered from memory (behind the log, as a copy nobody failed over from is not).
    expect(await seen()).toBe(before);
    expect(other.state.seq).toBeGreaterThan(before);
    expect(gateway.loadedEpisode('test', episode.id)).toBeDefined();
    expect(reads).not.toHaveBeenCalled();
    now += 1000;
    expect(gateway.loadedEpisode('test', episode.id)).toBeUndefined();
    expect(await seen()).toBe(other.state.seq);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('ends for both: a copy behind the end finds it and refuses the write as an ended episode does', async () => {
    const { first, second } = await copies();
    await first.close();
    const refused = await call(second, 'POST', '/tickets', ticket('too late'));
    expect(refused.status).toBe(409);
    expect(second.state.closed).toBe(true);
  });

  it("answers 503 without the store's own words when the store cannot take a write, and changes nothing", async () => {
    const store = new (class extends InMemoryEpisodeStore {
      failing = false;
      override append(tenantId: string, episodeId: string, events: LoggedEvent[]): Promise<void> {
        return this.failing
          ? Promise.reject(new Error('connect ECONNREFUSED 10.20.30.40:5432'))
          : super.append(tenantId, episodeId, events);
      }
    })();
    const { first } = await copies(store);
    const before = await store.events('test', first.id);
    store.failing = true;
    const answer = await call(first, 'POST', '/tickets', ticket('lost?'));
    expect(answer.status).toBe(503);
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|10\.20\.30\.40/);
    expect(JSON.stringify(answer.body)).toMatch(/could not be recorded/);
    expect(await store.events('test', first.id)).toEqual(before);
    store.failing = false;
    expect((await call(first, 'POST', '/tickets', ticket('again'))).status).toBe(201);
  });
});
