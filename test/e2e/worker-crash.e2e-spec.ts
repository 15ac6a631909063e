import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { startEpisodeHarness } from '@test/support/episode-harness';
import { testOperatorKey } from '@test/support/operator-key';
import { runEpisode } from '@libs/episode-runs';
import { AgentSession, referenceAgents, ReferenceAgent } from '@libs/reference-agents';
import type { EpisodeOutcome } from '@libs/workflow-contracts';

/** The built worker app as its own process, on the harness's task queue. */
const startWorker = (address: string, taskQueue: string, databaseUrl: string): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repositoryRoot, 'dist', 'apps', 'worker', 'src', 'main.js')], {
      cwd: repositoryRoot,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: address,
        MIRROR_TASK_QUEUE: taskQueue,
        DATABASE_URL: databaseUrl,
        MIRROR_OPERATOR_KEY: testOperatorKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('polling')) {
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the worker exited with ${code}: ${output}`)));
  });

/** What must be the same with and without a crash: the outcome and every line of the transcript. */
const comparable = (outcome: EpisodeOutcome) => {
  const { episodeId: _episodeId, ...rest } = outcome;
  return rest;
};

/**
 * Real: the built worker as a process killed with SIGKILL mid-episode and started again, the Temporal dev server,
 * the twins over HTTP, PostgreSQL. The episode must end exactly as an uninterrupted one with the same seed.
 */
describe('a worker killed mid-episode', () => {
  it('finishes the episode with the same outcome and transcript as an uninterrupted run', async () => {
    const harness = await startEpisodeHarness();
    let worker = await startWorker(harness.address, harness.taskQueue, harness.databaseUrl);
    const scenario = harness.scenario('single-supplier-negotiation');
    const diligent = referenceAgents.get('diligent') as ReferenceAgent;
    try {
      const uninterrupted = await runEpisode(harness.context, harness.signals, scenario, 7, diligent);

      let waits = 0;
      let killed = false;
      const crashing: ReferenceAgent = {
        name: 'diligent',
        run: (session) =>
          diligent.run({
            ...session,
            wait: async (businessDays?: number) => {
              waits++;
              if (waits === 2) {
                // Mid-turn: the update is in flight and the personas' activities are running when the worker dies.
                const pending = session.wait(businessDays);
                await new Promise((resolve) => setTimeout(resolve, 30));
                worker.kill('SIGKILL');
                killed = true;
                worker = await startWorker(harness.address, harness.taskQueue, harness.databaseUrl);
                return pending;
              }
              return session.wait(businessDays);
            },
          } satisfies AgentSession),
      };
      const crashed = await runEpisode(harness.context, harness.signals, scenario, 7, crashing);

      expect(killed).toBe(true);
      expect(uninterrupted.status).toBe('succeeded');
      expect(comparable(crashed)).toEqual(comparable(uninterrupted));
    } finally {
      worker.kill('SIGTERM');
      await harness.stop();
    }
  });
});
