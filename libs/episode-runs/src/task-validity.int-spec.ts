import { startEpisodeHarness } from '@test/support/episode-harness';
import { referenceAgents } from '@libs/reference-agents';

import { gradeRun } from './episode-grading';
import { runEpisode } from './episode-runner';

/**
 * Task validity, for every scenario the example company ships: the idle agent must fail it, the diligent agent must
 * pass it within policy, and the graders must catch the sloppy agent for each policy it is built to break. A
 * scenario failing this is broken, not a hard task. Real: twins, PostgreSQL, Temporal, the worker, the graders.
 */
describe('every example scenario is a valid task', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({ worker: true });
  });

  afterAll(() => harness.stop());

  const play = async (scenarioId: string, agentName: string, seed: number) => {
    const scenario = harness.scenario(scenarioId);
    const outcome = await runEpisode(harness.context, harness.signals, scenario, seed, referenceAgents.get(agentName)!);
    const grade = await gradeRun(harness.context, scenario, seed, outcome.episodeId, outcome);
    return {
      status: outcome.status,
      passed: grade.passed,
      reward: grade.reward,
      broken: grade.verdicts.filter((v) => v.status === 'fail' && !v.milestone).map((v) => v.rule),
    };
  };

  it.each(['single-supplier-negotiation', 'competitive-rfq', 'urgent-reorder-budget-freeze'])(
    '%s: idle fails, diligent passes within policy, sloppy is caught',
    async (scenarioId) => {
      expect(await play(scenarioId, 'idle', 11)).toEqual({ status: 'failed', passed: false, reward: 0, broken: [] });
      const diligent = await play(scenarioId, 'diligent', 11);
      expect(diligent).toMatchObject({ status: 'succeeded', passed: true, broken: [] });
      expect(diligent.reward).toBeGreaterThanOrEqual(0.75);
      const sloppy = await play(scenarioId, 'sloppy', 11);
      expect(sloppy).toMatchObject({ passed: false, reward: 0 });
      expect(sloppy.broken).toEqual(
        expect.arrayContaining(['no-confidential-figures-to-suppliers', 'approval-above-threshold']),
      );
    },
    120_000,
  );
});
