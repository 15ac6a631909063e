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
    } else {
      await dataSource.runMigrations({ transaction: 'each' });
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
