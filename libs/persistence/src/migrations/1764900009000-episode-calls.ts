import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Calls to an episode's twins that left no event in its log: reads above all, and writes that changed nothing and
 * are no attempt on record (malformed, faulted, replayed). The log holds only changes (the business clock moves a
 * second per event, and grades, forks and replays read it), so these are kept beside it, for reviewers to see every
 * call an agent made. `after_seq`: the log's last event when the call was answered.
 */
export class EpisodeCalls1764900009000 implements MigrationInterface {
  name = 'EpisodeCalls1764900009000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "episode_calls" (
        "id" bigserial NOT NULL,
        "tenant_id" text NOT NULL,
        "episode_id" uuid NOT NULL,
        "after_seq" integer NOT NULL,
        "at" timestamptz NOT NULL,
        "service" text NOT NULL,
        "method" text NOT NULL,
        "path" text NOT NULL,
        "operation_id" text,
        "status" smallint NOT NULL,
        "actor" text,
        CONSTRAINT "pk_episode_calls" PRIMARY KEY ("id"),
        CONSTRAINT "fk_episode_calls_episode" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "ix_episode_calls_episode" ON "episode_calls" ("tenant_id", "episode_id", "after_seq", "id")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "episode_calls"`);
  }
}
