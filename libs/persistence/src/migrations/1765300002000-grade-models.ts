import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A grade names the models that produced it: the rubric judge's and the counterparties' voices (templates or a
 * model), so a grade re-judged by another model reads as such. Grades stored before say nothing (`{}`).
 */
export class GradeModels1765300002000 implements MigrationInterface {
  name = 'GradeModels1765300002000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "episode_grades" ADD COLUMN "models" jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "episode_grades" DROP COLUMN "models"`);
  }
}
