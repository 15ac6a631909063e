import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What reviewers add to what Mirror recorded: an agreement with, or a dispute of, one verdict of one grade (pinned to
 * the policies and grader that produced it, so a later re-grade does not silently re-point it), and a rollout's
 * sign-off, once per reviewer. Each row names the evidence-trail entry written in its transaction.
 */
export class ReviewAnnotations1764900006000 implements MigrationInterface {
  name = 'ReviewAnnotations1764900006000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "review_annotations" (
        "id" uuid NOT NULL,
        "tenant_id" text NOT NULL,
        "episode_id" uuid NOT NULL,
        "policies" text NOT NULL,
        "grader_version" text NOT NULL,
        "rule" text NOT NULL,
        "stance" text NOT NULL,
        "comment" text NOT NULL,
        "reviewer" text NOT NULL,
        "audit_seq" bigint NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_review_annotations" PRIMARY KEY ("id"),
        CONSTRAINT "ck_review_annotations_stance" CHECK ("stance" IN ('agree', 'dispute')),
        CONSTRAINT "ck_review_annotations_comment" CHECK (length("comment") BETWEEN 1 AND 4000),
        CONSTRAINT "fk_review_annotations_episode" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "ix_review_annotations_episode" ON "review_annotations" ("tenant_id", "episode_id", "created_at")`,
    );
    await queryRunner.query(`
      CREATE TABLE "rollout_signoffs" (
        "tenant_id" text NOT NULL,
        "rollout_id" uuid NOT NULL,
        "reviewer" text NOT NULL,
        "decision" text NOT NULL,
        "comment" text NOT NULL,
        "audit_seq" bigint NOT NULL,
        "signed_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_rollout_signoffs" PRIMARY KEY ("rollout_id", "reviewer"),
        CONSTRAINT "ck_rollout_signoffs_decision" CHECK ("decision" IN ('approved', 'rejected')),
        CONSTRAINT "ck_rollout_signoffs_comment" CHECK (length("comment") <= 4000),
        CONSTRAINT "fk_rollout_signoffs_rollout" FOREIGN KEY ("rollout_id") REFERENCES "rollouts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "ix_rollout_signoffs_tenant" ON "rollout_signoffs" ("tenant_id", "rollout_id")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "rollout_signoffs"`);
    await queryRunner.query(`DROP TABLE "review_annotations"`);
  }
}
