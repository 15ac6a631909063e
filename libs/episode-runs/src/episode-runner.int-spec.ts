import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';

import { startEpisodeHarness } from '@test/support/episode-harness';
import { createWorker } from '@worker/worker-factory';
import { locateTemporalCli, silentLog } from '@libs/embedded-services';
import { referenceAgents } from '@libs/reference-agents';

import { runEpisode, workflowIdOf } from './episode-runner';

/**
 * Real: the example company's stack on the twins behind an HTTP gateway, PostgreSQL event logs, the Temporal dev
 * server with the worker's episode workflow and persona activities, the reference agents. Mocked: nothing.
 */
describe('episodes of the example scenarios', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;
  let worker: Worker;
  let workerRun: Promise<void>;
  let nativeConnection: NativeConnection;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    harness = await startEpisodeHarness();
    nativeConnection = await NativeConnection.connect({ address: harness.address });
    worker = await createWorker({ connection: nativeConnection, namespace: 'default', taskQueue: harness.taskQueue });
    workerRun = worker.run();
  });

  afterAll(async () => {
    worker.shutdown();
    await workerRun;
    await nativeConnection.close();
    await harness.stop();
  });

  const scenario = (id: string) => harness.scenario(id);
  const run = (id: string, seed: number, agent: string) =>
    runEpisode(harness.context, harness.signals, scenario(id), seed, referenceAgents.get(agent)!);
  it('the diligent agent negotiates, gets approval and places the order within the target', async () => {
    const outcome = await run('single-supplier-negotiation', 1, 'diligent');
    if (process.env.MIRROR_RECORD_HISTORY) {
      // Refreshes the recorded history the replay test holds today's workflow code against (Temporal's own JSON).
      const cli = await locateTemporalCli({
        searchPath: process.env.PATH,
        cacheDir: path.join(os.homedir(), '.cache', 'mirror'),
        log: silentLog,
      });
      const json = execFileSync(cli.executable as string, [
        'workflow',
        'show',
        '-w',
        workflowIdOf(outcome.episodeId),
        '--address',
        harness.address,
        '-o',
        'json',
      ]);
      fs.writeFileSync(process.env.MIRROR_RECORD_HISTORY, json);
    }
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
    const outcome = await run('single-supplier-negotiation', 1, 'idle');
    expect(outcome).toMatchObject({ status: 'failed', finalTerms: null, agentActions: 0 });
    expect(outcome.reason).toMatch(/no purchase order/);
  }, 60_000);
});
