import { EntityManager } from 'typeorm';

import type { Versions } from '@libs/evidence-trail';

/** The columns of an episode that say what produced its world and task. */
export interface EpisodeVersionColumns {
  stack_version: string;
  seed: string | number;
  scenario_id: string | null;
  scenario_seed: string | number | null;
}

/**
 * The versions an episode's entries carry: its stack (which pins its scenarios and policy sets by content), world
 * seed, and task with its seed. Each entry about an episode names them, so it reads alone, without its start.
 */
export const episodeVersionsOf = (row: EpisodeVersionColumns): Versions => ({
  stack: row.stack_version.trim(),
  worldSeed: Number(row.seed),
  ...(row.scenario_id ? { scenario: row.scenario_id, scenarioSeed: Number(row.scenario_seed) } : {}),
});

/** The tenant's episode's versions, read through `runner` (a transaction's manager where there is one). */
export const readEpisodeVersions = async (
  runner: Pick<EntityManager, 'query'>,
  tenantId: string,
  episodeId: string,
): Promise<Versions | undefined> => {
  if (!/^[0-9a-f-]{36}$/i.test(episodeId)) {
    return undefined;
  }
  const [row] = await runner.query<EpisodeVersionColumns[]>(
    'SELECT stack_version, seed, scenario_id, scenario_seed FROM episodes WHERE id = $1 AND tenant_id = $2',
    [episodeId, tenantId],
  );
  return row ? episodeVersionsOf(row) : undefined;
};
