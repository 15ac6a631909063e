import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Calls that left no event are chained per episode, as the event log is committed to: each carries its place `n`
 * (1, 2, 3…), the previous call's hash and its own (SHA-256 of the previous hash and its canonical content). An
 * episode's grading entry in the evidence trail records the count and the last hash, so `mirror audit verify --deep`
 * finds an edited, deleted or reordered call and names it. Calls stored before this have no place and no entry
 * commits to them.
 */
export class EpisodeCallChain1765100001000 implements MigrationInterface {
  name = 'EpisodeCallChain1765100001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "episode_calls" ADD COLUMN "n" integer, ADD COLUMN "prev_hash" text, ADD COLUMN "hash" text`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_episode_calls_place" ON "episode_calls" ("tenant_id", "episode_id", "n")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "uq_episode_calls_place"`);
    await queryRunner.query(`ALTER TABLE "episode_calls" DROP COLUMN "hash", DROP COLUMN "prev_hash", DROP COLUMN "n"`);
  }
}
