import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollouts: tasks × trials of one agent on one stack version, and each trial's result. A trial is recorded once
 * (its primary key): a retried activity after a worker restart finds its trial done instead of playing it again.
 * An episode row may outlive its trial's episode (deleted episodes leave the result, without the link).
 */
export class CreateRollouts1764700000000 implements MigrationInterface {
  name = 'CreateRollouts1764700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "rollouts" (
        "id" uuid NOT NULL,
        "tenant_id" text NOT NULL,
        "stack_version" char(64) NOT NULL,
        "bundle" text NOT NULL,
        "agent" text NOT NULL,
        "tasks" jsonb NOT NULL,
        "trials" integer NOT NULL,
        "concurrency" integer NOT NULL,
        "status" text NOT NULL,
        "report" jsonb,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "finished_at" timestamptz,
        CONSTRAINT "pk_rollouts" PRIMARY KEY ("id"),
        CONSTRAINT "ck_rollouts_status" CHECK ("status" IN ('running', 'completed', 'cancelled')),
        CONSTRAINT "ck_rollouts_trials" CHECK ("trials" > 0 AND "concurrency" > 0)
      )`);
    await queryRunner.query(`CREATE INDEX "ix_rollouts_tenant" ON "rollouts" ("tenant_id", "created_at")`);
    await queryRunner.query(`
      CREATE TABLE "rollout_episodes" (
        "rollout_id" uuid NOT NULL,
        "task" text NOT NULL,
        "trial" integer NOT NULL,
        "episode_id" uuid,
        "status" text NOT NULL,
        "passed" boolean,
        "reward" double precision,
        "violations" jsonb NOT NULL,
        "reason" text NOT NULL,
        "recorded_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_rollout_episodes" PRIMARY KEY ("rollout_id", "task", "trial"),
        CONSTRAINT "fk_rollout_episodes_rollout" FOREIGN KEY ("rollout_id") REFERENCES "rollouts"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_rollout_episodes_episode" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE SET NULL
      )`);
    await queryRunner.query(`CREATE INDEX "ix_rollout_episodes_episode" ON "rollout_episodes" ("episode_id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "rollout_episodes"`);
    await queryRunner.query(`DROP TABLE "rollouts"`);
  }
}
