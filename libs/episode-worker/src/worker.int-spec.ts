import { randomUUID } from 'node:crypto';

import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';

import { testOperatorKey } from '@test/support/operator-key';
import { requireEnvironment } from '@test/support/test-services';

import { createWorker } from './worker-factory';
import { healthCheckWorkflow } from './workflows';

/**
 * Real: the Temporal dev server provisioned by the test setup (CLI from PATH, cache or a Go build), the worker with
 * its bundled workflows and activities. Mocked: nothing.
 */
describe('worker on a real Temporal server', () => {
  beforeAll(() => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  });

  it('runs the health-check workflow through an activity', async () => {
    const address = requireEnvironment('TEMPORAL_ADDRESS');
    const nativeConnection = await NativeConnection.connect({ address });
    const connection = await Connection.connect({ address });
    const taskQueue = `test-${randomUUID()}`;
    try {
      const worker = await createWorker({
        connection: nativeConnection,
        namespace: 'default',
        taskQueue,
        operatorKey: testOperatorKey,
      });
      const client = new Client({ connection });
      const nonce = randomUUID();
      const result = await worker.runUntil(
        client.workflow.execute(healthCheckWorkflow, { args: [{ nonce }], taskQueue, workflowId: `health-${nonce}` }),
      );
      expect(result.nonce).toBe(nonce);
      expect(result.workerIdentity).toMatch(/:\d+$/);
    } finally {
      await connection.close();
      await nativeConnection.close();
    }
  });
});
