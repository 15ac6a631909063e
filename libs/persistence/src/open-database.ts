import { DataSource } from 'typeorm';

import { MirrorConfig } from '@libs/config';
import { provideDatabase, ServiceLog } from '@libs/embedded-services';

import { assertNoPendingMigrations, createDataSource } from './data-source';

export interface OpenDatabase {
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * The database an app or command runs on, ready to use. The embedded database belongs to Mirror, so its schema is
 * migrated on the spot; a database named by DATABASE_URL is someone's server and is only checked (`npm run
 * db:migrate` applies what is pending).
 */
export const openDatabase = async (
  config: Pick<MirrorConfig, 'DATABASE_URL' | 'MIRROR_DATA_DIR' | 'MIRROR_DATABASE_POOL_SIZE'>,
  log: ServiceLog,
): Promise<OpenDatabase> => {
  const database = await provideDatabase(config, log);
  const dataSource = createDataSource(database.url, {
    poolSize: Math.min(config.MIRROR_DATABASE_POOL_SIZE, database.maxConnections ?? Infinity),
  });
  try {
    await dataSource.initialize();
    if (database.source === 'DATABASE_URL') {
      await assertNoPendingMigrations(dataSource);
    } else if (database.source === 'embedded PGlite') {
      await dataSource.runMigrations({ transaction: 'each' });
    } else {
      await migratedByItsOwner(dataSource);
    }
  } catch (error) {
    if (dataSource.isInitialized) {
      await dataSource.destroy();
    }
    await database.stop();
    throw error;
  }
  return {
    dataSource,
    close: async () => {
      if (dataSource.isInitialized) {
        await dataSource.destroy();
      }
      await database.stop();
    },
  };
};

/**
 * A process borrowing another's embedded database leaves its schema to the owner, which migrates it as it starts:
 * two processes migrating one database at once clashed ("relation already exists") when both started on a new folder.
 * The borrower waits for the owner's migrations; an owner of an older Mirror that never applies this one's is named.
 */
const migratedByItsOwner = async (dataSource: DataSource, waitMs = 120_000): Promise<void> => {
  const until = Date.now() + waitMs;
  while (await dataSource.showMigrations()) {
    if (Date.now() > until) {
      throw new Error(
        `the Mirror process serving the embedded database of this data folder has not applied this version's ` +
          `migrations in ${waitMs / 1000} s: it runs an older Mirror. Stop it, or give this process its own ` +
          `MIRROR_DATA_DIR`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
};
