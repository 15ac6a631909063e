import { DataSource } from 'typeorm';

import { EpisodeNotInTenantError } from '@libs/twin-engine';

/** Which task an episode was: enough to rebuild its task instance and grade it again later. */
export interface EpisodeRun<Outcome = unknown> {
  episodeId: string;
  scenarioId: string;
  scenarioFile: string;
  /** The task instance's seed (the world's may be fixed by the scenario). */
  seed: number;
  agent: string;
  outcome: Outcome;
}

/**
 * The models that produced a grade: the rubric judge (`llm:<model>`, or `none` when no model judged) and who spoke
 * for the counterparties (`templates` or `llm:<model>`). Empty for grades stored before they were recorded.
 */
export interface GradeModels {
  judge?: string;
  personas?: string;
}

export interface StoredGrade<Grade = unknown> {
  /** The policy sets judged, as `id@version`, comma-separated: a new version is a new grade beside the old. */
  policies: string;
  graderVersion: string;
  models: GradeModels;
  gradedAt: string;
  grade: Grade;
}

const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

// One error for a write about an episode the tenant does not own, whichever repository refused it.
export { EpisodeNotInTenantError };

/**
 * Runs and grades of episodes. A grade is kept per (policy versions, grader version): re-grading with a new policy
 * version adds one and keeps the old; re-grading with the same ones replaces it (grading is deterministic). Runs and
 * grades belong to their episode's tenant: every method takes the tenant, and reads and writes go through the
 * episode's row, so another tenant's episode id finds nothing and stores nothing.
 */
export class EpisodeGradeRepository {
  constructor(private readonly dataSource: DataSource) {}

  async saveRun(tenantId: string, run: EpisodeRun): Promise<void> {
    const saved = await this.dataSource.query<unknown[]>(
      `INSERT INTO episode_runs (episode_id, scenario_id, scenario_file, seed, agent, outcome)
       SELECT id, $2, $3, $4, $5, $6 FROM episodes WHERE id = $1 AND tenant_id = $7
       ON CONFLICT (episode_id) DO UPDATE SET outcome = EXCLUDED.outcome, recorded_at = now() RETURNING episode_id`,
      [run.episodeId, run.scenarioId, run.scenarioFile, run.seed, run.agent, JSON.stringify(run.outcome), tenantId],
    );
    if (saved.length === 0) {
      throw new EpisodeNotInTenantError(tenantId, run.episodeId);
    }
  }

  async findRun<Outcome>(tenantId: string, episodeId: string): Promise<EpisodeRun<Outcome> | undefined> {
    if (!isUuid(episodeId)) {
      return undefined;
    }
    const [row] = await this.dataSource.query<
      {
        episode_id: string;
        scenario_id: string;
        scenario_file: string;
        seed: string;
        agent: string;
        outcome: Outcome;
      }[]
    >(
      `SELECT r.* FROM episode_runs r JOIN episodes e ON e.id = r.episode_id WHERE r.episode_id = $1 AND e.tenant_id = $2`,
      [episodeId, tenantId],
    );
    return row
      ? {
          episodeId: row.episode_id,
          scenarioId: row.scenario_id,
          scenarioFile: row.scenario_file,
          seed: Number(row.seed),
          agent: row.agent,
          outcome: row.outcome,
        }
      : undefined;
  }

  async saveGrade(
    tenantId: string,
    episodeId: string,
    policies: string,
    graderVersion: string,
    grade: unknown,
    models: GradeModels = {},
  ): Promise<void> {
    const saved = await this.dataSource.query<unknown[]>(
      `INSERT INTO episode_grades (episode_id, policies, grader_version, grade, models)
       SELECT id, $2, $3, $4, $6 FROM episodes WHERE id = $1 AND tenant_id = $5
       ON CONFLICT (episode_id, policies, grader_version)
       DO UPDATE SET grade = EXCLUDED.grade, models = EXCLUDED.models, graded_at = now()
       RETURNING episode_id`,
      [episodeId, policies, graderVersion, JSON.stringify(grade), tenantId, JSON.stringify(models)],
    );
    if (saved.length === 0) {
      throw new EpisodeNotInTenantError(tenantId, episodeId);
    }
  }

  /** Every grade of an episode, oldest first. */
  async grades<Grade>(tenantId: string, episodeId: string): Promise<StoredGrade<Grade>[]> {
    if (!isUuid(episodeId)) {
      return [];
    }
    const rows = await this.dataSource.query<
      { policies: string; grader_version: string; graded_at: Date; grade: Grade; models: GradeModels }[]
    >(
      `SELECT g.policies, g.grader_version, g.graded_at, g.grade, g.models FROM episode_grades g
       JOIN episodes e ON e.id = g.episode_id WHERE g.episode_id = $1 AND e.tenant_id = $2
       ORDER BY g.graded_at, g.policies`,
      [episodeId, tenantId],
    );
    return rows.map((r) => ({
      policies: r.policies,
      graderVersion: r.grader_version,
      models: r.models,
      gradedAt: new Date(r.graded_at).toISOString(),
      grade: r.grade,
    }));
  }
}
