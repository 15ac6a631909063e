import * as path from 'node:path';

import { ingestStack, StackModel } from '@libs/stack-ingestion';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { TwinRequest, TwinResponse } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Real: the example procurement stack's twins, worlds and episodes, the engine's budget and rebuild; the store is in
 * memory (its durability is the PostgreSQL store's subject) and the wall clock is the test's own, so "idle" is exact.
 */
describe('episodes and worlds evicted by a memory budget', () => {
  const service = 'procurement';
  let model: StackModel;
  let version: string;

  beforeAll(async () => {
    ({ model, version } = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../examples/acme-procurement'),
    }));
  });

  const call = (episode: Episode, method: string, target: string, body?: unknown): Promise<TwinResponse> => {
    const [pathOnly, search = ''] = target.split('?');
    const request: TwinRequest = {
      method,
      path: pathOnly,
      query: new URLSearchParams(search),
      search,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${episode.agentTokenFor(service) ?? ''}` },
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    };
    return episode.handle(service, request, `http://twin${pathOnly}`);
  };

  /** What an agent sees of an episode: the answers to the same reads, byte for byte. */
  const answers = async (episode: Episode, reads: string[]): Promise<string[]> =>
    Promise.all(reads.map(async (read) => JSON.stringify(await call(episode, 'GET', read))));

  /** A store whose appends can be held, so a write stays in flight as long as the test needs. */
  class HeldStore extends InMemoryEpisodeStore {
    held: Promise<void> = Promise.resolve();

    override async append(...args: Parameters<InMemoryEpisodeStore['append']>): Promise<void> {
      await this.held;
      return super.append(...args);
    }
  }

  const engineWith = (budgetBytes: number | undefined) => {
    let now = 1_000_000;
    const store = new HeldStore();
    const engine = new TwinEngine(store, new StaticStackSource(model), new Map(), {
      budgetBytes,
      idleMs: 1000,
      clock: () => now,
    });
    return { engine, store, later: (ms: number) => (now += ms) };
  };

  /** An episode on its own world (a seed each) with a supplier made and changed: something to lose. */
  const busyEpisode = async (engine: TwinEngine, seed: number) => {
    const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed });
    const created = await call(episode, 'POST', '/suppliers', { name: `Evicted ${seed} Ltd`, country: 'GB' });
    const { id } = (created.text ? JSON.parse(created.text) : created.body) as { id: string };
    await call(episode, 'PATCH', `/suppliers/${id}`, { name: `Evicted ${seed} Two Ltd`, country: 'GB' });
    return { episode, reads: ['/suppliers?limit=50', `/suppliers/${id}`, '/purchase-orders?limit=5'] };
  };

  it('drops the least recently used idle episode and its world, and rebuilds both to answer identically', async () => {
    const { engine, later } = engineWith(1);
    const first = await busyEpisode(engine, 1);
    const before = await answers(first.episode, first.reads);
    const fingerprint = first.episode.state.fingerprint();
    const { seq } = first.episode.state;
    later(5000);

    // A newer episode on another world pushes the estimate over the (tiny) budget: the first, idle, goes.
    const second = await busyEpisode(engine, 2);
    expect(engine.holds(first.episode.id)).toBe(false);
    expect(engine.holds(second.episode.id)).toBe(true);
    expect(engine.evictions).toEqual({ episodes: 1, worlds: 1 });

    const rebuilt = await engine.episode('test', first.episode.id);
    expect(rebuilt).not.toBe(first.episode);
    expect(rebuilt.twin).not.toBe(first.episode.twin);
    expect(rebuilt.state.seq).toBe(seq);
    expect(rebuilt.state.fingerprint()).toEqual(fingerprint);
    expect(await answers(rebuilt, first.reads)).toEqual(before);
    // Its tokens still open it: the credentials come from the stored secret, not the lost object.
    expect(rebuilt.agentTokenFor(service)).toBe(first.episode.agentTokenFor(service));
  });

  it('never drops an episode in use, one with a write in flight, or a pinned one', async () => {
    const { engine, store, later } = engineWith(1);
    const recent = await busyEpisode(engine, 3);
    const pinned = await busyEpisode(engine, 4);
    const release = engine.pin(pinned.episode.id);
    later(5000);
    let open = () => {};
    store.held = new Promise((resolve) => (open = resolve));
    const writing = call(recent.episode, 'POST', '/suppliers', { name: 'In Flight Ltd', country: 'GB' });
    await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 5 });
    expect(engine.holds(recent.episode.id)).toBe(true);
    expect(engine.holds(pinned.episode.id)).toBe(true);
    open();
    expect((await writing).status).toBe(201);

    later(5000);
    release();
    await busyEpisode(engine, 6);
    expect(engine.holds(recent.episode.id)).toBe(false);
    expect(engine.holds(pinned.episode.id)).toBe(false);
  });

  it('keeps a world while an episode on it is held, and everything when no budget is set', async () => {
    const bounded = engineWith(1);
    const shared = await busyEpisode(bounded.engine, 7);
    const neighbour = await bounded.engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 7 });
    bounded.later(5000);
    bounded.engine.loadedEpisode('test', neighbour.id);
    await busyEpisode(bounded.engine, 8);
    expect(bounded.engine.holds(shared.episode.id)).toBe(false);
    expect(bounded.engine.holds(neighbour.id)).toBe(true);
    expect(bounded.engine.evictions.worlds).toBe(0);
    expect((await bounded.engine.episode('test', shared.episode.id)).twin).toBe(neighbour.twin);

    const unbounded = engineWith(undefined);
    const kept = await busyEpisode(unbounded.engine, 9);
    unbounded.later(60_000);
    await busyEpisode(unbounded.engine, 10);
    expect(unbounded.engine.holds(kept.episode.id)).toBe(true);
    expect(unbounded.engine.residency()).toMatchObject({ episodes: 2, worlds: 2 });
  });
});
