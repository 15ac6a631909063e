import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Episodes outside agents play through the episode API: who may act in them (a hash of the episode-scoped token,
 * never the token), their limits and how they ended; every call the agent made with its arguments and observation, in
 * order (the trajectory, which outlives the process); and the responses kept per idempotency key.
 */
export class LiveEpisodes1764510000000 implements MigrationInterface {
  name = 'LiveEpisodes1764510000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "live_episodes" (
        "id" uuid NOT NULL,
        "environment" text NOT NULL,
        "task" text NOT NULL,
        "group_id" uuid,
        "token_hash" bytea NOT NULL,
        "max_steps" integer NOT NULL,
        "status" text NOT NULL,
        "steps" integer NOT NULL DEFAULT 0,
        "truncated" boolean NOT NULL DEFAULT false,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL,
        "ended_at" timestamptz,
        "result" jsonb,
        CONSTRAINT "pk_live_episodes" PRIMARY KEY ("id"),
        CONSTRAINT "fk_live_episodes_episode" FOREIGN KEY ("id") REFERENCES "episodes"("id") ON DELETE CASCADE,
        CONSTRAINT "ck_live_episodes_status" CHECK ("status" IN ('running', 'ended', 'expired', 'deleted'))
      )`);
    await queryRunner.query(`CREATE INDEX "ix_live_episodes_group" ON "live_episodes" ("group_id")`);
    await queryRunner.query(`
      CREATE TABLE "live_episode_steps" (
        "episode_id" uuid NOT NULL,
        "index" integer NOT NULL,
        "at" timestamptz NOT NULL,
        "wall_ms" double precision NOT NULL,
        "business_time" text NOT NULL,
        "call" jsonb NOT NULL,
        "observation" jsonb NOT NULL,
        "counted" boolean NOT NULL,
        "seq_before" integer NOT NULL,
        "seq_after" integer NOT NULL,
        CONSTRAINT "pk_live_episode_steps" PRIMARY KEY ("episode_id", "index"),
        CONSTRAINT "fk_live_episode_steps_episode" FOREIGN KEY ("episode_id") REFERENCES "live_episodes"("id")
          ON DELETE CASCADE
      )`);
    await queryRunner.query(`
      CREATE TABLE "idempotency_keys" (
        "scope" text NOT NULL,
        "key" text NOT NULL,
        "body_hash" char(64) NOT NULL,
        "status" integer,
        "response" jsonb,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("scope", "key")
      )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
    await queryRunner.query(`DROP TABLE "live_episode_steps"`);
    await queryRunner.query(`DROP TABLE "live_episodes"`);
  }
}
