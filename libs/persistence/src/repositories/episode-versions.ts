import { EntityManager } from 'typeorm';

import { materialDigest, Versions } from '@libs/evidence-trail';

/** The columns of an episode that say what produced its world and task. */
export interface EpisodeVersionColumns {
  stack_version: string;
  seed: string | number;
  scenario_id: string | null;
  scenario_seed: string | number | null;
  /** The task's definition as its stack version stores it (absent when the stack holds no scenario of that id). */
  scenario_definition?: unknown;
}

/**
 * The digest of a scenario's definition as stored (its stack version's model, canonical JSON, SHA-256): names the task
 * by content, as the stack version names the stack, so an entry shows which definition of a scenario id produced it
 * without holding the whole stack. Key order and formatting do not change it (RFC 8785).
 */
export const scenarioDigestOf = (definition: unknown): string => materialDigest(definition);

/** SQL for the stored definition of the scenario `scenarioId` in the tenant's stack version (null when there is none). */
const storedDefinition = (tenant: string, stackVersion: string, scenarioId: string): string =>
  `(SELECT s.value->'scenario' FROM stack_versions v
      CROSS JOIN LATERAL jsonb_array_elements(COALESCE(v.model->'scenarios', '[]'::jsonb)) AS s(value)
     WHERE v.tenant_id = ${tenant} AND v.version = ${stackVersion} AND s.value->'scenario'->>'id' = ${scenarioId}
     LIMIT 1)`;

/**
 * The versions an episode's entries carry: its stack (which pins its scenarios and policy sets by content), world
 * seed, and task with its seed and the digest of its definition. Each entry about an episode names them, so it reads
 * alone, without its start.
 */
export const episodeVersionsOf = (row: EpisodeVersionColumns): Versions => ({
  stack: row.stack_version.trim(),
  worldSeed: Number(row.seed),
  ...(row.scenario_id ? { scenario: row.scenario_id, scenarioSeed: Number(row.scenario_seed) } : {}),
  ...(row.scenario_id && row.scenario_definition !== null && row.scenario_definition !== undefined
    ? { scenarioDigest: scenarioDigestOf(row.scenario_definition) }
    : {}),
});

/** The digest of a scenario as the tenant's stack version stores it; undefined when the stack holds no such scenario. */
export const readScenarioDigest = async (
  runner: Pick<EntityManager, 'query'>,
  tenantId: string,
  stackVersion: string,
  scenarioId: string,
): Promise<string | undefined> => {
  const [row] = await runner.query<{ definition: unknown }[]>(
    `SELECT ${storedDefinition('$1', '$2', '$3')} AS definition`,
    [tenantId, stackVersion.trim(), scenarioId],
  );
  return row?.definition === null || row?.definition === undefined ? undefined : scenarioDigestOf(row.definition);
};

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
    `SELECT e.stack_version, e.seed, e.scenario_id, e.scenario_seed,
            ${storedDefinition('e.tenant_id', 'e.stack_version', 'e.scenario_id')} AS scenario_definition
       FROM episodes e WHERE e.id = $1 AND e.tenant_id = $2`,
    [episodeId, tenantId],
  );
  return row ? episodeVersionsOf(row) : undefined;
};
