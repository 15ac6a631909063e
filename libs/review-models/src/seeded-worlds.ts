import type { ReviewedEpisodeRow, StackRepository } from '@libs/persistence';
import { synthesizeCompany, World, WorldSizes } from '@libs/synthetic-data';
import { PackRegistry, packTables, StackTwin } from '@libs/twin-engine';

/**
 * The world an episode started from, rebuilt from what made it; undefined when it cannot be (its stack is gone, or
 * uses a pack this process lacks). `tables`: the tables whose seeded records the reader needs; the packs' tables and
 * the company's people always come (cheap), the stack's own generic records only when one of `tables` is theirs.
 */
export type SeededWorlds = (
  tenantId: string,
  episode: ReviewedEpisodeRow,
  tables: ReadonlySet<string>,
) => Promise<World | undefined>;

/**
 * Worlds rebuilt as the twins build them: deterministic from (stack version, seed, sizes), so the records an episode
 * started from are known without having been stored. The stack's generic records cost seconds for a large stack
 * (thousands of records), its packs' and people a few hundred milliseconds: the generic ones are built only when an
 * episode changed one of them. The last few worlds are kept: a reviewer reads an episode's page, its report and its
 * neighbours of the same rollout.
 */
export const stackWorlds = (stacks: StackRepository, packs: PackRegistry, capacity = 4): SeededWorlds => {
  const built = new Map<string, Promise<World | undefined>>();
  const cached = (key: string, build: () => World | undefined): Promise<World | undefined> => {
    const known = built.get(key);
    if (known) {
      built.delete(key);
      built.set(key, known);
      return known;
    }
    // A pack this process does not have throws: the page falls back to ids and unknown seeded values.
    const building = Promise.resolve()
      .then(build)
      .catch(() => undefined);
    built.set(key, building);
    for (const oldest of built.keys()) {
      if (built.size <= capacity) {
        break;
      }
      built.delete(oldest);
    }
    return building;
  };
  return async (tenantId, episode, tables) => {
    const stack = await stacks.findVersion(tenantId, episode.stackVersion);
    if (!stack) {
      return undefined;
    }
    const packServices = new Set(stack.model.services.filter((s) => s.pack).map((s) => s.name));
    const generic = [...tables].some((table) => !packServices.has(table.split('/')[0]));
    const sizes: WorldSizes = episode.sizes;
    const key = JSON.stringify([tenantId, stack.version, episode.seed, sizes]);
    // The whole world holds the packs' tables too: once built, it serves both.
    if (generic || built.has(`${key}:whole`)) {
      return cached(
        `${key}:whole`,
        () => StackTwin.build(stack.model, stack.version, episode.seed, sizes, packs).world,
      );
    }
    return cached(`${key}:packs`, () => {
      if (packServices.size === 0) {
        return undefined;
      }
      const company = synthesizeCompany(episode.seed, sizes.company, stack.model.company);
      const seeded = packTables(stack.model, company, episode.seed, packs);
      return {
        key: `${key}:packs`,
        stackVersion: stack.version,
        seed: episode.seed,
        sizes,
        tables: seeded,
        recordCount: [...seeded.values()].reduce((n, t) => n + t.ids.length, 0),
        company,
      };
    });
  };
};
