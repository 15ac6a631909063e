import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Server } from 'node:http';

import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { DataSource } from 'typeorm';

import { repositoryRoot } from '@test/support/cli-runner';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';
import { createWorker } from '@worker/worker-factory';
import { createDataSource, PostgresEpisodeStore, RepositoryStackSource, StackRepository } from '@libs/persistence';
import { referenceAgents } from '@libs/reference-agents';
import { ingestStack, StackModel } from '@libs/stack-ingestion';
import { createGatewayServer, TwinEngine } from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';

import { runEpisode, RunnerContext, WorkflowSignals } from './episode-runner';
import { SignallingEpisodeStore } from './signalling-episode-store';

/**
 * Real: the example company's stack on the twins behind an HTTP gateway, PostgreSQL event logs, the Temporal dev
 * server with the worker's episode workflow and persona activities, the reference agents. Mocked: nothing.
 */
describe('episodes of the example scenarios', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;
  let server: Server;
  let worker: Worker;
  let workerRun: Promise<void>;
  let nativeConnection: NativeConnection;
  let connection: Connection;
  let context: RunnerContext;
  let model: StackModel;
  const signals = new WorkflowSignals();

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    const ingested = await ingestStack({
      kind: 'path',
      path: path.join(repositoryRoot, 'examples', 'acme-manufacturing'),
    });
    model = ingested.model;
    const stacks = new StackRepository(dataSource);
    await stacks.saveVersion('test', ingested.version, model);
    const store = new SignallingEpisodeStore(new PostgresEpisodeStore(dataSource), signals.listener);
    const engine = new TwinEngine(store, new RepositoryStackSource(stacks), builtInPacks);
    server = createGatewayServer(engine, 'test', { error: (message) => console.error(message) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = requireEnvironment('TEMPORAL_ADDRESS');
    nativeConnection = await NativeConnection.connect({ address });
    connection = await Connection.connect({ address });
    const taskQueue = `episodes-${randomUUID()}`;
    worker = await createWorker({ connection: nativeConnection, namespace: 'default', taskQueue });
    workerRun = worker.run();
    context = {
      engine,
      temporal: new Client({ connection }),
      gatewayUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      tenantId: 'test',
      stackVersion: ingested.version,
      model,
      taskQueue,
    };
  });

  afterAll(async () => {
    worker.shutdown();
    await workerRun;
    await connection.close();
    await nativeConnection.close();
    await new Promise((resolve) => server.close(resolve));
    await dataSource.destroy();
    await database.drop();
  });

  const scenario = (id: string) => {
    const found = model.scenarios.find((s) => s.scenario.id === id);
    if (!found) {
      throw new Error(`no scenario ${id}`);
    }
    return found.scenario;
  };

  it('the diligent agent negotiates, gets approval and places the order within the target', async () => {
    const outcome = await runEpisode(
      context,
      signals,
      scenario('single-supplier-negotiation'),
      1,
      referenceAgents.get('diligent')!,
    );
    expect(outcome).toMatchObject({ status: 'succeeded', scenarioId: 'single-supplier-negotiation', seed: 1 });
    expect(outcome.finalTerms?.status).toMatch(/sent|acknowledged/);
    expect(outcome.simulatedBusinessDays).toBeGreaterThanOrEqual(1);
    const kinds = outcome.transcript.map((entry) => `${entry.actor === 'agent' ? 'agent' : 'other'} ${entry.kind}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'agent email.sent',
        'other email.sent',
        'agent erp.po.pending_approval',
        'other erp.po.approved',
        'agent erp.po.sent',
      ]),
    );
  }, 120_000);

  it('the idle agent fails the task', async () => {
    const outcome = await runEpisode(
      context,
      signals,
      scenario('single-supplier-negotiation'),
      1,
      referenceAgents.get('idle')!,
    );
    expect(outcome).toMatchObject({ status: 'failed', finalTerms: null, agentActions: 0 });
    expect(outcome.reason).toMatch(/no purchase order/);
  }, 60_000);
});
