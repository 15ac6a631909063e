import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { createApiApp } from '@api/bootstrap';
import { loadConfig } from '@libs/config';
import { createDataSource } from '@libs/persistence';
import { createTestDatabase } from '@test/support/test-services';

export interface TestApiApp {
  dataSource: DataSource;
  app: INestApplication;
  server: request.SuperTest<request.Test>;
  /** The app, its connection and its throw-away database, in that order. */
  close: () => Promise<void>;
}

/**
 * The api app as main.ts builds it (keys mode, every route behind the guard) over a throw-away migrated database,
 * initialised but not listening: what the control plane's integration tests call through supertest.
 */
export const startTestApiApp = async (settings: Record<string, string> = {}): Promise<TestApiApp> => {
  const database = await createTestDatabase();
  const dataSource = createDataSource(database.url);
  await dataSource.initialize();
  const app = await createApiApp(loadConfig({ DATABASE_URL: database.url, ...settings }), dataSource, false);
  await app.init();
  return {
    dataSource,
    app,
    server: request(app.getHttpServer()) as unknown as request.SuperTest<request.Test>,
    close: async () => {
      await app.close();
      await dataSource.destroy();
      await database.drop();
    },
  };
};
