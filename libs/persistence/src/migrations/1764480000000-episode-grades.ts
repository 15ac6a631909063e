import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who caused each event (graders attribute actions by credentials, not by what a request claims), the runs of
 * scenarios (which task an episode was, for re-grading), and grades kept per policy version.
 */
export class EpisodeGrades1764480000000 implements MigrationInterface {
  name = 'EpisodeGrades1764480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "episode_events" ADD COLUMN "actor" text`);
    await queryRunner.query(`
      CREATE TABLE "episode_runs" (
        "episode_id" uuid NOT NULL,
        "scenario_id" text NOT NULL,
        "scenario_file" text NOT NULL,
        "seed" bigint NOT NULL,
        "agent" text NOT NULL,
        "outcome" jsonb NOT NULL,
        "recorded_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_episode_runs" PRIMARY KEY ("episode_id"),
        CONSTRAINT "fk_episode_runs_episode" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`
      CREATE TABLE "episode_grades" (
        "episode_id" uuid NOT NULL,
        "policies" text NOT NULL,
        "grader_version" text NOT NULL,
        "grade" jsonb NOT NULL,
        "graded_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_episode_grades" PRIMARY KEY ("episode_id", "policies", "grader_version"),
        CONSTRAINT "fk_episode_grades_episode" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE
      )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "episode_grades"`);
    await queryRunner.query(`DROP TABLE "episode_runs"`);
    await queryRunner.query(`ALTER TABLE "episode_events" DROP COLUMN "actor"`);
  }
}
