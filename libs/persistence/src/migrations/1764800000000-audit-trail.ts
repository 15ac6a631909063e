import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The evidence trail: per tenant, an append-only chain of entries (each carries the previous entry's hash) and its
 * head. The database itself refuses UPDATE, DELETE and TRUNCATE on entries, whatever role the app connects as, so
 * changing history takes someone who can drop the trigger, and `mirror audit verify` shows what they changed.
 */
export class AuditTrail1764800000000 implements MigrationInterface {
  name = 'AuditTrail1764800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "audit_entries" (
        "tenant_id" text NOT NULL,
        "seq" bigint NOT NULL,
        "id" uuid NOT NULL,
        "at" timestamptz NOT NULL,
        "actor" text NOT NULL,
        "actor_kind" text NOT NULL,
        "action" text NOT NULL,
        "subject_kind" text NOT NULL,
        "subject_id" text NOT NULL,
        "details" jsonb NOT NULL,
        "versions" jsonb NOT NULL,
        "prev_hash" text NOT NULL,
        "hash" text NOT NULL,
        CONSTRAINT "pk_audit_entries" PRIMARY KEY ("tenant_id", "seq"),
        CONSTRAINT "uq_audit_entries_id" UNIQUE ("id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "ix_audit_entries_subject" ON "audit_entries" ("tenant_id", "subject_kind", "subject_id")`,
    );
    await queryRunner.query(`
      CREATE TABLE "audit_heads" (
        "tenant_id" text PRIMARY KEY,
        "seq" bigint NOT NULL,
        "hash" text NOT NULL
      )`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "mirror_audit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit entries are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER "audit_entries_append_only" BEFORE UPDATE OR DELETE ON "audit_entries"
      FOR EACH ROW EXECUTE FUNCTION "mirror_audit_append_only"()`);
    await queryRunner.query(`
      CREATE TRIGGER "audit_entries_no_truncate" BEFORE TRUNCATE ON "audit_entries"
      FOR EACH STATEMENT EXECUTE FUNCTION "mirror_audit_append_only"()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "audit_heads"`);
    await queryRunner.query(`DROP TABLE "audit_entries"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS "mirror_audit_append_only"()`);
  }
}
