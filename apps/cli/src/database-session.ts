import { DataSource } from 'typeorm';

import { loadConfig, MirrorConfig } from '@libs/config';
import { provideDatabase, ServiceLog } from '@libs/embedded-services';
import { createDataSource, openDatabase, StackRepository } from '@libs/persistence';

export interface DatabaseSession {
  config: MirrorConfig;
  dataSource: DataSource;
  stacks: StackRepository;
}

/** Opens the database for one command and always closes it. */
export const withDatabase = async <T>(log: ServiceLog, work: (session: DatabaseSession) => Promise<T>): Promise<T> => {
  const config = loadConfig();
  const database = await openDatabase(config, log);
  try {
    return await work({ config, dataSource: database.dataSource, stacks: new StackRepository(database.dataSource) });
  } finally {
    await database.close();
  }
};

/** Like withDatabase, but for `mirror db …`: migrations are what the command is about, so none run implicitly. */
export const withRawDatabase = async <T>(log: ServiceLog, work: (dataSource: DataSource) => Promise<T>): Promise<T> => {
  const config = loadConfig();
  const database = await provideDatabase(config, log);
  const dataSource = createDataSource(database.url, {
    poolSize: Math.min(config.MIRROR_DATABASE_POOL_SIZE, database.maxConnections ?? Infinity),
  });
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
