import { Command } from 'commander';

import { stderrLog } from '@libs/embedded-services';
import { withRawDatabase } from '@cli/database-session';

export const dbCommand = (): Command => {
  const db = new Command('db').description('manage the database schema (DATABASE_URL, or the embedded database)');
  db.command('migrate')
    .description('apply pending migrations')
    .action(() =>
      withRawDatabase(stderrLog, async (dataSource) => {
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        process.stdout.write(
          applied.length ? applied.map((m) => `applied ${m.name}\n`).join('') : 'schema is up to date\n',
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
      withRawDatabase(stderrLog, async (dataSource) => {
        await dataSource.dropDatabase();
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        process.stdout.write(`reset; applied ${applied.length} migrations\n`);
      }),
    );
  return db;
};
