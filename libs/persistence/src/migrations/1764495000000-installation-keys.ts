import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keys of the installation, made once from the server's strong random source and shared by every process that uses
 * the database: the instance key draws task instances and worlds from seeds, so a seed alone reveals nothing hidden.
 */
export class InstallationKeys1764495000000 implements MigrationInterface {
  name = 'InstallationKeys1764495000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "installation_keys" ("name" text PRIMARY KEY, "value" text NOT NULL, "created_at" timestamptz NOT NULL DEFAULT now())`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "installation_keys"`);
  }
}
