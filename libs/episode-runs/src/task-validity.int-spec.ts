import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';

import { startEpisodeHarness } from '@test/support/episode-harness';
import { createWorker } from '@worker/worker-factory';
import { referenceAgents } from '@libs/reference-agents';
import type { Company } from '@libs/synthetic-data';
import { instantiate } from '@libs/scenarios';

import { gradeEpisode } from './episode-grading';
import { runEpisode } from './episode-runner';

/**
 * Task validity, for every scenario the example company ships: the idle agent must fail it, the diligent agent must
 * pass it within policy, and the graders must catch the sloppy agent for each policy it is built to break. A
 * scenario failing this is broken, not a hard task. Real: twins, PostgreSQL, Temporal, the worker, the graders.
 */
describe('every example scenario is a valid task', () => {
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

  const play = async (scenarioId: string, agentName: string, seed: number) => {
    const scenario = harness.scenario(scenarioId);
    const outcome = await runEpisode(harness.context, harness.signals, scenario, seed, referenceAgents.get(agentName)!);
    const company = (await harness.context.engine.episode(outcome.episodeId)).twin.world.company as Company;
    const verdicts = await gradeEpisode(
      harness.context.gatewayUrl,
      outcome.episodeId,
      harness.context.model,
      scenario,
      instantiate(scenario, seed, company),
      company,
    );
    return { status: outcome.status, broken: verdicts.filter((v) => v.status === 'fail').map((v) => v.rule) };
  };

  it.each(['single-supplier-negotiation', 'competitive-rfq', 'urgent-reorder-budget-freeze'])(
    '%s: idle fails, diligent passes within policy, sloppy is caught',
    async (scenarioId) => {
      expect(await play(scenarioId, 'idle', 11)).toEqual({ status: 'failed', broken: [] });
      expect(await play(scenarioId, 'diligent', 11)).toEqual({ status: 'succeeded', broken: [] });
      const sloppy = await play(scenarioId, 'sloppy', 11);
      expect(sloppy.broken).toEqual(['no-confidential-figures-to-suppliers', 'approval-above-threshold']);
    },
    120_000,
  );
});
