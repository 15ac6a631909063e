import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How each audit entry's hash is made: 1 for every entry written before (over the whole entry, as they were hashed and
 * still verify), 2 for new ones (over digests of subject and content, so a bundle proves its chain through other
 * subjects' entries without carrying them). A row whose version is changed no longer matches its hash.
 */
export class AuditHashVersion1765400001000 implements MigrationInterface {
  name = 'AuditHashVersion1765400001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "audit_entries" ADD COLUMN "hash_version" smallint NOT NULL DEFAULT 1
         CONSTRAINT "ck_audit_entries_hash_version" CHECK ("hash_version" IN (1, 2))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_entries" DROP COLUMN "hash_version"`);
  }
}
