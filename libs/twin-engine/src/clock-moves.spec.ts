import * as path from 'node:path';

import { ingestStack, StackModel } from '@libs/stack-ingestion';

import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Real: the example procurement stack's twins and an episode of it; the store is in memory. A workflow's clock move
 * is sent again when its answer was lost (the activity retried, or the workflow task replayed on another worker):
 * the same move, by its key, must not add a second clock event, and must answer as it did the first time.
 */
describe('keyed clock moves', () => {
  let model: StackModel;
  let version: string;

  beforeAll(async () => {
    ({ model, version } = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../examples/acme-procurement'),
    }));
  });

  const episodeOf = async () => {
    const store = new InMemoryEpisodeStore();
    const engine = new TwinEngine(store, new StaticStackSource(model), new Map());
    const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 1 });
    const clockEvents = async () =>
      (await engine.events('test', episode.id)).filter((logged) => logged.event.type === 'clock.set').length;
    return { store, engine, episode, clockEvents };
  };

  const at = (day: number) => `2026-07-${String(day).padStart(2, '0')}T09:00:00.000Z`;

  it('logs a move once however often it is sent, and answers a repeat with the time it moved to', async () => {
    const { store, episode, clockEvents } = await episodeOf();
    expect(await episode.advanceClock(at(1), 'run-1/1')).toBe(at(1));
    expect(await episode.advanceClock(at(1), 'run-1/1')).toBe(at(1));
    expect(await clockEvents()).toBe(1);

    // A later move, then the earlier one replayed: answered as it was, the clock left where the later one put it.
    expect(await episode.advanceClock(at(3), 'run-1/2')).toBe(at(3));
    expect(await episode.advanceClock(at(1), 'run-1/1')).toBe(at(1));
    expect(await clockEvents()).toBe(2);
    expect(episode.now()).toBe(at(3));

    // Remembered from the log: a copy rebuilt elsewhere (another gateway) knows the moves made.
    const rebuilt = await new TwinEngine(store, new StaticStackSource(model), new Map()).episode('test', episode.id);
    expect(await rebuilt.advanceClock(at(3), 'run-1/2')).toBe(at(3));
    expect(await clockEvents()).toBe(2);
  });

  it('still moves for a new key, and refuses to move back for one', async () => {
    const { episode, clockEvents } = await episodeOf();
    await episode.advanceClock(at(2), 'run-1/1');
    expect(await episode.advanceClock(at(2), 'run-2/1')).toBe(at(2));
    expect(await clockEvents()).toBe(2);
    await expect(episode.advanceClock(at(1), 'run-2/2')).rejects.toThrow(/cannot move to/);
    // Unkeyed moves (an operator's own) are each logged, as before.
    await episode.advanceClock(at(2));
    expect(await clockEvents()).toBe(3);
  });
});
