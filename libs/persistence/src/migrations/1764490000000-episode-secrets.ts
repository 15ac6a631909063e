import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every episode gets a secret its credentials are derived from. Episodes made before have none: they get one from
 * the server's strong random source (`gen_random_uuid` draws on it), so their old seed-derived tokens stop working.
 */
export class EpisodeSecrets1764490000000 implements MigrationInterface {
  name = 'EpisodeSecrets1764490000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "episodes" ADD COLUMN "secret" text`);
    await queryRunner.query(
      `UPDATE "episodes" SET "secret" = replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`,
    );
    await queryRunner.query(`ALTER TABLE "episodes" ALTER COLUMN "secret" SET NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "episodes" DROP COLUMN "secret"`);
  }
}
