import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys belong to a tenant: two tenants that pick the same key for the same route never see each other's
 * answer (a replayed episode start holds the episode's token). Rows kept so far are given the tenant of the episode
 * their scope or stored answer names; a row that names none (a start still in flight at the upgrade) cannot be
 * attributed and is dropped, so its retry runs afresh instead of answering anyone with a stranger's response.
 */
export class IdempotencyKeysPerTenant1765000010000 implements MigrationInterface {
  name = 'IdempotencyKeysPerTenant1765000010000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD COLUMN "tenant_id" text`);
    await queryRunner.query(`
      UPDATE "idempotency_keys" k SET "tenant_id" = e."tenant_id" FROM "episodes" e
      WHERE e."id"::text = COALESCE(
        substring(k."scope" from '/v1/episodes/([0-9a-f-]{36})'),
        k."response"->>'episode_id',
        k."response"->'episodes'->0->>'episode_id'
      )`);
    await queryRunner.query(`DELETE FROM "idempotency_keys" WHERE "tenant_id" IS NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ALTER COLUMN "tenant_id" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP CONSTRAINT "pk_idempotency_keys"`);
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ADD CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("tenant_id", "scope", "key")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // One answer per (scope, key) again: where tenants shared a key, one tenant's row stays.
    await queryRunner.query(`
      DELETE FROM "idempotency_keys" a USING "idempotency_keys" b
      WHERE a."scope" = b."scope" AND a."key" = b."key" AND a."tenant_id" > b."tenant_id"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP CONSTRAINT "pk_idempotency_keys"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "tenant_id"`);
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ADD CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("scope", "key")`,
    );
  }
}
