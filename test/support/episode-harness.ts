import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Server } from 'node:http';

import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { DataSource } from 'typeorm';

import { RunnerContext, RunningEpisodes } from '@libs/episode-runs';
import { createDataSource, PostgresEpisodeStore, RepositoryStackSource, StackRepository } from '@libs/persistence';
import { createGatewayServer, TwinEngine } from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';
import { createWorker } from '@libs/episode-worker';

import { repositoryRoot } from './cli-runner';
import { testOperatorKey } from './operator-key';
import { testInstanceKey } from './instance-key';
import { createTestDatabase, requireEnvironment } from './test-services';
import { ingestedOnce, testWorkflowBundle } from './run-cache';

/**
 * Everything an episode of the example company (or of another bundle) needs but the worker: a fresh database, the stack stored, the twins
 * behind an HTTP gateway with the event store workflows read, and a Temporal client on its own task queue.
 */
export const startEpisodeHarness = async (options: { worker?: boolean; bundle?: string } = {}) => {
  const database = await createTestDatabase();
  const dataSource: DataSource = createDataSource(database.url);
  await dataSource.initialize();
  const { model, version } = await ingestedOnce(
    options.bundle ?? path.join(repositoryRoot, 'examples', 'acme-manufacturing'),
  );
  const stacks = new StackRepository(dataSource);
  await stacks.saveVersion('test', version, model);
  const signals = new RunningEpisodes();
  // As the episode host: no signal per twin event (the workflow reads the log at each wait and at the end; a signal
  // arriving while its last task runs the parties' final steps would fail that task and the agent's `finish`).
  const store = new PostgresEpisodeStore(dataSource);
  const engine = new TwinEngine(store, new RepositoryStackSource(stacks), builtInPacks);
  const server: Server = createGatewayServer(
    engine,
    'test',
    { error: (message) => console.error(message) },
    testOperatorKey,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = requireEnvironment('TEMPORAL_ADDRESS');
  const connection = await Connection.connect({ address });
  const taskQueue = `episodes-${randomUUID()}`;
  // The worker in this process when asked (a test that kills workers runs its own as processes).
  let nativeConnection: NativeConnection | undefined;
  let worker: Worker | undefined;
  let working: Promise<void> | undefined;
  if (options.worker) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    nativeConnection = await NativeConnection.connect({ address });
    worker = await createWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue,
      operatorKey: testOperatorKey,
      ...testWorkflowBundle(),
    });
    working = worker.run();
  }
  const context: RunnerContext = {
    engine,
    temporal: new Client({ connection }),
    gatewayUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tenantId: 'test',
    stackVersion: version,
    model,
    taskQueue,
    instanceKey: testInstanceKey,
  };
  const scenario = (id: string) => {
    const found = model.scenarios.find((s) => s.scenario.id === id);
    if (!found) {
      throw new Error(`no scenario ${id}`);
    }
    return found.scenario;
  };
  return {
    context,
    dataSource,
    signals,
    scenario,
    address,
    taskQueue,
    databaseUrl: database.url,
    nativeConnection,
    stop: async () => {
      worker?.shutdown();
      await working;
      await nativeConnection?.close();
      await connection.close();
      await new Promise((resolve) => server.close(resolve));
      await dataSource.destroy();
      await database.drop();
    },
  };
};
