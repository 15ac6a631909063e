import * as path from 'node:path';

import { ingestStack, StackModel } from '@libs/stack-ingestion';

import { EpisodeNotInTenantError } from './episode-events';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { EpisodeNotFoundError, StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Real: the example procurement stack's twins and the engine; the store is in memory (the PostgreSQL store's own test
 * shows the same refusals in SQL). An episode id is all another tenant would need to guess or overhear: with it, and
 * its own tenant, it must reach nothing, whether the episode is held in memory or rebuilt from the store.
 */
describe('episodes of another tenant', () => {
  let model: StackModel;
  let version: string;

  beforeAll(async () => {
    ({ model, version } = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../examples/acme-procurement'),
    }));
  });

  const setUp = async () => {
    const store = new InMemoryEpisodeStore();
    const engine = new TwinEngine(store, new StaticStackSource(model));
    const episode = await engine.createEpisode({ tenantId: 'north', stackVersion: version, seed: 3 });
    await episode.advanceClock('2030-01-01T00:00:00Z');
    return { store, engine, episode };
  };

  it('are not found by the engine, held in memory or rebuilt', async () => {
    const { store, engine, episode } = await setUp();

    expect(engine.loadedEpisode('south', episode.id)).toBeUndefined();
    await expect(engine.episode('south', episode.id)).rejects.toThrow(EpisodeNotFoundError);
    await expect(engine.events('south', episode.id)).rejects.toThrow(EpisodeNotFoundError);
    await expect(engine.fork('south', episode.id)).rejects.toThrow(EpisodeNotFoundError);
    await expect(engine.setFaults('south', episode.id, { services: {} })).rejects.toThrow(EpisodeNotFoundError);

    const rebuilding = new TwinEngine(store, new StaticStackSource(model));
    await expect(rebuilding.episode('south', episode.id)).rejects.toThrow(EpisodeNotFoundError);
    // The owner still reaches it, with its log whole: the refusals changed nothing.
    expect((await rebuilding.episode('north', episode.id)).now()).toBe(episode.now());
    expect(await engine.events('north', episode.id)).toHaveLength(1);
  });

  it('take no writes and give no events from the store', async () => {
    const { store, episode } = await setUp();
    const [event] = await store.events('north', episode.id);

    await expect(store.append('south', episode.id, [{ ...event, seq: 2 }])).rejects.toThrow(EpisodeNotInTenantError);
    await expect(
      store.forkEpisode({
        ...episode.descriptor,
        id: 'fork',
        tenantId: 'south',
        forkedFrom: { episodeId: episode.id, seq: 1 },
      }),
    ).rejects.toThrow(EpisodeNotInTenantError);
    await store.setFaults('south', episode.id, { services: { procurement: { errorRate: 1 } } });

    expect(await store.events('south', episode.id)).toEqual([]);
    expect(await store.findEpisode('south', episode.id)).toBeUndefined();
    expect(await store.findEpisode('south', 'fork')).toBeUndefined();
    expect(await store.events('north', episode.id)).toEqual([event]);
    expect((await store.findEpisode('north', episode.id))?.faults).toBeUndefined();
  });
});
