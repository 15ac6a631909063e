import { Command } from 'commander';
import { DataSource } from 'typeorm';

import { MigrationDatabase } from '@libs/config';
import { stderrLog } from '@libs/embedded-services';
import { grantAppRole } from '@libs/persistence';
import { withRawDatabase } from '@cli/database-session';

/** Pending migrations, then (with a separate schema owner) the grants of the apps' group role, on every table. */
const migrate = async (
  dataSource: DataSource,
  owner: MigrationDatabase | undefined,
): Promise<{ applied: string[]; granted?: string }> => {
  const applied = (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  if (!owner) {
    return { applied };
  }
  await grantAppRole(dataSource, owner.appRole);
  return { applied, granted: `granted role ${owner.appRole} the apps' rights (evidence: SELECT and INSERT only)\n` };
};

export const dbCommand = (): Command => {
  const db = new Command('db').description(
    'manage the database schema (as MIRROR_MIGRATION_DATABASE_URL, else DATABASE_URL, or the embedded database)',
  );
  db.command('migrate')
    .description("apply pending migrations (and, with a separate schema owner, grant the apps' group role)")
    .action(() =>
      withRawDatabase(stderrLog, async (dataSource, owner) => {
        const { applied, granted } = await migrate(dataSource, owner);
        process.stdout.write(
          (applied.length ? applied.map((name) => `applied ${name}\n`).join('') : 'schema is up to date\n') +
            (granted ?? ''),
        );
      }),
    );
  db.command('revert')
    .description('revert the last applied migration')
    .action(() =>
      withRawDatabase(stderrLog, async (dataSource) => {
        await dataSource.undoLastMigration({ transaction: 'each' });
        process.stdout.write('reverted the last migration\n');
      }),
    );
  db.command('reset')
    .description('drop every table and apply all migrations again (destroys data)')
    .action(() =>
      withRawDatabase(stderrLog, async (dataSource, owner) => {
        await dataSource.dropDatabase();
        const { applied, granted } = await migrate(dataSource, owner);
        process.stdout.write(`reset; applied ${applied.length} migrations\n${granted ?? ''}`);
      }),
    );
  return db;
};
