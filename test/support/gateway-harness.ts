import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { DataSource } from 'typeorm';

import { createDataSource, PostgresEpisodeStore, RepositoryStackSource, StackRepository } from '@libs/persistence';
import { ingestStack } from '@libs/stack-ingestion';
import { createGatewayServer, TwinEngine } from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';

import { repositoryRoot } from './cli-runner';
import { testOperatorKey } from './operator-key';
import { createTestDatabase } from './test-services';

export const tenant = 'test';

/** A gateway on a random port over a fresh database holding the example stack: what e2e tests talk HTTP to. */
export const startGateway = async () => {
  const database = await createTestDatabase();
  const dataSource: DataSource = createDataSource(database.url);
  await dataSource.initialize();
  const { model, version } = await ingestStack({
    kind: 'path',
    path: path.join(repositoryRoot, 'examples', 'acme-procurement'),
  });
  const stacks = new StackRepository(dataSource);
  await stacks.saveVersion(tenant, version, model);
  const engine = new TwinEngine(new PostgresEpisodeStore(dataSource), new RepositoryStackSource(stacks), builtInPacks);
  const errors: string[] = [];
  const server = createGatewayServer(engine, tenant, { error: (message) => errors.push(message) }, testOperatorKey);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    engine,
    version,
    dataSource,
    errors,
    databaseUrl: database.url,
    /** A second engine over the same database: what a restarted gateway would be. */
    freshEngine: () =>
      new TwinEngine(new PostgresEpisodeStore(dataSource), new RepositoryStackSource(stacks), builtInPacks),
    stop: async () => {
      await new Promise((resolve) => server.close(resolve));
      await dataSource.destroy();
      await database.drop();
    },
  };
};

export const json = async (response: Response): Promise<any> => {
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
};
