import 'reflect-metadata';

import { Logger } from '@nestjs/common';

import { loadConfig } from '@libs/config';
import { provideDatabase } from '@libs/embedded-services';
import { assertNoPendingMigrations, createDataSource } from '@libs/persistence';

import { createApiApp } from './bootstrap';

const bootstrap = async (): Promise<void> => {
  const logger = new Logger('api');
  const config = loadConfig();
  const database = await provideDatabase(config, logger);
  const dataSource = createDataSource(database.url);
  await dataSource.initialize();
  if (database.source === 'DATABASE_URL') {
    await assertNoPendingMigrations(dataSource);
  } else {
    await dataSource.runMigrations({ transaction: 'each' });
  }
  const app = await createApiApp(config, dataSource);
  const shutdown = async (): Promise<void> => {
    await app.close();
    await dataSource.destroy();
    await database.stop();
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  await app.listen(config.PORT, '127.0.0.1');
  logger.log(`listening on http://127.0.0.1:${config.PORT}`);
};

bootstrap().catch((error: unknown) => {
  process.stderr.write(`api: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
