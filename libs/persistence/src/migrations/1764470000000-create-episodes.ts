import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateEpisodes1764470000000 implements MigrationInterface {
  name = 'CreateEpisodes1764470000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "episodes" (
        "id" uuid NOT NULL,
        "tenant_id" text NOT NULL,
        "stack_version" char(64) NOT NULL,
        "seed" bigint NOT NULL,
        "sizes" jsonb NOT NULL,
        "faults" jsonb,
        "forked_from" uuid,
        "forked_at_seq" integer,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_episodes" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "ix_episodes_tenant" ON "episodes" ("tenant_id", "created_at")`);
    await queryRunner.query(`
      CREATE TABLE "episode_events" (
        "episode_id" uuid NOT NULL,
        "seq" integer NOT NULL,
        "at" timestamptz NOT NULL,
        "operation_id" text NOT NULL,
        "event" jsonb NOT NULL,
        "recorded_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_episode_events" PRIMARY KEY ("episode_id", "seq"),
        CONSTRAINT "fk_episode_events_episode" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE
      )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "episode_events"`);
    await queryRunner.query(`DROP TABLE "episodes"`);
  }
}
