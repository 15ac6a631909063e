import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys: each belongs to one tenant and holds one role. Only a salted scrypt hash of the key's secret is kept (the
 * key is shown once); a key is never deleted, only revoked, so the evidence trail's `key:<id>` actors stay resolvable.
 */
export class ApiKeys1764900005000 implements MigrationInterface {
  name = 'ApiKeys1764900005000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "api_keys" (
        "id" text NOT NULL,
        "tenant_id" text NOT NULL,
        "role" text NOT NULL,
        "name" text NOT NULL,
        "salt" bytea NOT NULL,
        "hash" bytea NOT NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz,
        "revoked_at" timestamptz,
        "revoked_by" text,
        CONSTRAINT "pk_api_keys" PRIMARY KEY ("id"),
        CONSTRAINT "ck_api_keys_id" CHECK ("id" ~ '^[0-9a-f]{16}$'),
        CONSTRAINT "ck_api_keys_role" CHECK ("role" IN ('engineer', 'trainer', 'reviewer', 'admin'))
      )`);
    await queryRunner.query(`CREATE INDEX "ix_api_keys_tenant" ON "api_keys" ("tenant_id", "created_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "api_keys"`);
  }
}
