import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateStacks1764460000000 implements MigrationInterface {
  name = 'CreateStacks1764460000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "stacks" (
        "id" uuid NOT NULL,
        "tenant_id" text NOT NULL,
        "name" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_stacks" PRIMARY KEY ("id"),
        CONSTRAINT "uq_stacks_tenant_name" UNIQUE ("tenant_id", "name")
      )`);
    await queryRunner.query(`
      CREATE TABLE "stack_versions" (
        "id" uuid NOT NULL,
        "stack_id" uuid NOT NULL,
        "tenant_id" text NOT NULL,
        "version" char(64) NOT NULL,
        "model" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_stack_versions" PRIMARY KEY ("id"),
        CONSTRAINT "uq_stack_versions_stack_version" UNIQUE ("stack_id", "version"),
        CONSTRAINT "fk_stack_versions_stack" FOREIGN KEY ("stack_id") REFERENCES "stacks"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "ix_stack_versions_tenant_version" ON "stack_versions" ("tenant_id", "version")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "stack_versions"`);
    await queryRunner.query(`DROP TABLE "stacks"`);
  }
}
