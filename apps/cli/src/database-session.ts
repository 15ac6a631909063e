import { DataSource } from 'typeorm';

import { loadConfig, MigrationDatabase, migrationDatabase, MirrorConfig } from '@libs/config';
import { provideDatabase, redactUrl, RunningDatabase, ServiceLog } from '@libs/embedded-services';
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

/**
 * Like withDatabase, but for `mirror db …`: migrations are what the command is about, so none run implicitly. It
 * connects as the schema's owner when MIRROR_MIGRATION_DATABASE_URL names one, and then passes the apps' group role
 * to grant; otherwise as DATABASE_URL's role (or the embedded database), which owns what it migrates.
 */
export const withRawDatabase = async <T>(
  log: ServiceLog,
  work: (dataSource: DataSource, owner: MigrationDatabase | undefined) => Promise<T>,
): Promise<T> => {
  const config = loadConfig();
  const owner = migrationDatabase(config);
  if (owner) {
    log.log(`database: migrating as MIRROR_MIGRATION_DATABASE_URL (${redactUrl(owner.url)})`);
  }
  const database: RunningDatabase = owner
    ? { url: owner.url, source: 'DATABASE_URL', stop: () => Promise.resolve() }
    : await provideDatabase(config, log);
  const dataSource = createDataSource(database.url, {
    poolSize: Math.min(config.MIRROR_DATABASE_POOL_SIZE, database.maxConnections ?? Infinity),
  });
  try {
    await dataSource.initialize();
    return await work(dataSource, owner);
  } finally {
    if (dataSource.isInitialized) {
      await dataSource.destroy();
    }
    await database.stop();
  }
};
