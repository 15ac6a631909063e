import { DataSource } from 'typeorm';

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

export interface StoredGrade<Grade = unknown> {
  /** The policy sets judged, as `id@version`, comma-separated: a new version is a new grade beside the old. */
  policies: string;
  graderVersion: string;
  gradedAt: string;
  grade: Grade;
}

/**
 * Runs and grades of episodes. A grade is kept per (policy versions, grader version): re-grading with a new policy
 * version adds one and keeps the old; re-grading with the same ones replaces it (grading is deterministic).
 */
export class EpisodeGradeRepository {
  constructor(private readonly dataSource: DataSource) {}

  async saveRun(run: EpisodeRun): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO episode_runs (episode_id, scenario_id, scenario_file, seed, agent, outcome)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (episode_id) DO UPDATE SET outcome = EXCLUDED.outcome, recorded_at = now()`,
      [run.episodeId, run.scenarioId, run.scenarioFile, run.seed, run.agent, JSON.stringify(run.outcome)],
    );
  }

  async findRun<Outcome>(episodeId: string): Promise<EpisodeRun<Outcome> | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(episodeId)) {
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
    >('SELECT * FROM episode_runs WHERE episode_id = $1', [episodeId]);
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

  async saveGrade(episodeId: string, policies: string, graderVersion: string, grade: unknown): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO episode_grades (episode_id, policies, grader_version, grade) VALUES ($1, $2, $3, $4)
       ON CONFLICT (episode_id, policies, grader_version) DO UPDATE SET grade = EXCLUDED.grade, graded_at = now()`,
      [episodeId, policies, graderVersion, JSON.stringify(grade)],
    );
  }

  /** Every grade of an episode, oldest first. */
  async grades<Grade>(episodeId: string): Promise<StoredGrade<Grade>[]> {
    const rows = await this.dataSource.query<
      { policies: string; grader_version: string; graded_at: Date; grade: Grade }[]
    >(
      'SELECT policies, grader_version, graded_at, grade FROM episode_grades WHERE episode_id = $1 ORDER BY graded_at, policies',
      [episodeId],
    );
    return rows.map((r) => ({
      policies: r.policies,
      graderVersion: r.grader_version,
      gradedAt: new Date(r.graded_at).toISOString(),
      grade: r.grade,
    }));
  }
}
