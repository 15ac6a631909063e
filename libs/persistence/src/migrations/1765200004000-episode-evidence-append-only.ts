import { MigrationInterface, QueryRunner } from 'typeorm';

const tables = ['episode_events', 'episode_calls'] as const;

/**
 * An episode's log (`episode_events`) and its calls that left no event (`episode_calls`, hash-chained) are evidence
 * as the audit entries are: the database refuses UPDATE, DELETE and TRUNCATE of their rows, whatever role the app
 * connects as, so changing them takes someone who can drop the triggers, and `mirror audit verify --deep` shows what
 * they changed against the entries that commit to them.
 *
 * No code path of Mirror changes or removes these rows: a reset or a fork is a new episode whose log is copied (an
 * INSERT … SELECT), an ended episode's log is frozen by its `episode.closed` event rather than by rewriting, eviction
 * drops only what a process holds in memory, and nothing deletes episodes (with these triggers a DELETE of an episode
 * is refused too, as its foreign keys would cascade to its log and calls). A retention policy, when one is wanted,
 * is an operator's act outside the app: it drops the triggers, and the chain records what went missing.
 */
export class EpisodeEvidenceAppendOnly1765200004000 implements MigrationInterface {
  name = 'EpisodeEvidenceAppendOnly1765200004000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "mirror_episode_evidence_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
      END
      $$`);
    for (const table of tables) {
      await queryRunner.query(`
        CREATE TRIGGER "${table}_append_only" BEFORE UPDATE OR DELETE ON "${table}"
        FOR EACH ROW EXECUTE FUNCTION "mirror_episode_evidence_append_only"()`);
      await queryRunner.query(`
        CREATE TRIGGER "${table}_no_truncate" BEFORE TRUNCATE ON "${table}"
        FOR EACH STATEMENT EXECUTE FUNCTION "mirror_episode_evidence_append_only"()`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of tables) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS "${table}_no_truncate" ON "${table}"`);
      await queryRunner.query(`DROP TRIGGER IF EXISTS "${table}_append_only" ON "${table}"`);
    }
    await queryRunner.query(`DROP FUNCTION IF EXISTS "mirror_episode_evidence_append_only"()`);
  }
}
