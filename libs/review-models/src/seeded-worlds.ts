import type { ReviewedEpisodeRow, StackRepository } from '@libs/persistence';
import type { World } from '@libs/synthetic-data';
import { PackRegistry, StackTwin } from '@libs/twin-engine';

/** The world an episode started from, rebuilt from what made it; undefined when it cannot be (its stack is gone). */
export type SeededWorlds = (tenantId: string, episode: ReviewedEpisodeRow) => Promise<World | undefined>;

/**
 * Worlds rebuilt as the twins build them: deterministic from (stack version, seed, sizes), so the records an episode
 * started from are known without having been stored. The last few are kept: a reviewer reads an episode's page, its
 * report and its neighbours of the same rollout, which share one world.
 */
export const stackWorlds = (stacks: StackRepository, packs: PackRegistry, capacity = 4): SeededWorlds => {
  const built = new Map<string, Promise<World | undefined>>();
  return (tenantId, episode) => {
    const key = JSON.stringify([tenantId, episode.stackVersion, episode.seed, episode.sizes]);
    const known = built.get(key);
    if (known) {
      built.delete(key);
      built.set(key, known);
      return known;
    }
    const building = (async () => {
      const stack = await stacks.findVersion(tenantId, episode.stackVersion);
      if (!stack) {
        return undefined;
      }
      try {
        return StackTwin.build(stack.model, stack.version, episode.seed, episode.sizes, packs).world;
      } catch {
        // A pack this process does not have: the page falls back to ids and shows no seeded values.
        return undefined;
      }
    })();
    built.set(key, building);
    building.catch(() => built.delete(key));
    for (const oldest of built.keys()) {
      if (built.size <= capacity) {
        break;
      }
      built.delete(oldest);
    }
    return building;
  };
};
