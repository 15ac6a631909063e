import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An episode records the task it plays (scenario and task seed), however it was started (`mirror run`, the gateway's
 * POST /episodes, a fork), so any stored episode can be graded again. Episodes made before get theirs from the run
 * `mirror run` recorded, and forks from their source, down any chain of forks.
 */
export class EpisodeScenarios1764500000000 implements MigrationInterface {
  name = 'EpisodeScenarios1764500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "episodes" ADD COLUMN "scenario_id" text, ADD COLUMN "scenario_seed" bigint`);
    await queryRunner.query(
      `UPDATE "episodes" e SET "scenario_id" = r."scenario_id", "scenario_seed" = r."seed"
       FROM "episode_runs" r WHERE r."episode_id" = e."id"`,
    );
    await queryRunner.query(
      `WITH RECURSIVE "lineage" ("id", "scenario_id", "scenario_seed") AS (
         SELECT "id", "scenario_id", "scenario_seed" FROM "episodes" WHERE "scenario_id" IS NOT NULL
         UNION ALL
         SELECT f."id", l."scenario_id", l."scenario_seed"
         FROM "episodes" f JOIN "lineage" l ON f."forked_from" = l."id" WHERE f."scenario_id" IS NULL
       )
       UPDATE "episodes" e SET "scenario_id" = l."scenario_id", "scenario_seed" = l."scenario_seed"
       FROM "lineage" l WHERE l."id" = e."id" AND e."scenario_id" IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "episodes" ADD CONSTRAINT "ck_episodes_scenario_seed"
       CHECK (("scenario_id" IS NULL) = ("scenario_seed" IS NULL))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "episodes" DROP CONSTRAINT "ck_episodes_scenario_seed", DROP COLUMN "scenario_seed", DROP COLUMN "scenario_id"`,
    );
  }
}
