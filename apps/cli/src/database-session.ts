import { DataSource } from 'typeorm';

import { loadConfig, MirrorConfig } from '@libs/config';
import { provideDatabase, ServiceLog } from '@libs/embedded-services';
import { assertNoPendingMigrations, createDataSource, StackRepository } from '@libs/persistence';

export interface DatabaseSession {
  config: MirrorConfig;
  dataSource: DataSource;
  stacks: StackRepository;
}

/**
 * Opens the database for one command and always closes it. The embedded database belongs to Mirror, so its schema
 * is migrated on the spot; a database named by DATABASE_URL is someone's server and is only checked.
 */
export const withDatabase = async <T>(log: ServiceLog, work: (session: DatabaseSession) => Promise<T>): Promise<T> => {
  const config = loadConfig();
  const database = await provideDatabase(config, log);
  const dataSource = createDataSource(database.url);
  try {
    await dataSource.initialize();
    if (database.source === 'DATABASE_URL') {
      await assertNoPendingMigrations(dataSource);
    } else {
      await dataSource.runMigrations({ transaction: 'each' });
    }
    return await work({ config, dataSource, stacks: new StackRepository(dataSource) });
  } finally {
    if (dataSource.isInitialized) {
      await dataSource.destroy();
    }
    await database.stop();
  }
};

/** Like withDatabase, but for `mirror db …`: migrations are what the command is about, so none run implicitly. */
export const withRawDatabase = async <T>(log: ServiceLog, work: (dataSource: DataSource) => Promise<T>): Promise<T> => {
  const database = await provideDatabase(loadConfig(), log);
  const dataSource = createDataSource(database.url);
  try {
    await dataSource.initialize();
    return await work(dataSource);
  } finally {
    if (dataSource.isInitialized) {
      await dataSource.destroy();
    }
    await database.stop();
  }
};
