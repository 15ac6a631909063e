import * as path from 'node:path';

import { startEpisodeHarness } from '@test/support/episode-harness';
import { repositoryRoot } from '@test/support/cli-runner';
import { planAgent, referenceAgents } from '@libs/reference-agents';
import { trapSteps } from '@libs/scenarios';
import type { PlanStep } from '@libs/stack-model';

import { gradeRun } from './episode-grading';
import { AgentForInstance, runEpisode } from './episode-runner';

/**
 * Real: a stack with no pack at all (one DDL served as a data twin), its declared party, the twins behind the gateway,
 * PostgreSQL, Temporal, the worker and the graders. The oracle and the trap are the scenario's plans, played by the
 * generic plan agent as the agent.
 */
describe('the plan agent on a stack without packs', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({
      worker: true,
      bundle: path.join(repositoryRoot, 'test', 'fixtures', 'stock-desk'),
    });
  });

  afterAll(() => harness.stop());

  const planned = (name: string, steps: readonly PlanStep[]): AgentForInstance => ({
    name,
    forInstance: (instance, insight) => planAgent(name, steps, instance.values, insight),
  });

  const play = async (agent: AgentForInstance, seed: number) => {
    const scenario = harness.scenario('restock');
    const outcome = await runEpisode(harness.context, harness.signals, scenario, seed, agent);
    const grade = await gradeRun(harness.context, scenario, seed, outcome.episodeId, outcome);
    return {
      status: outcome.status,
      agentError: outcome.agentError,
      passed: grade.passed,
      broken: grade.verdicts.filter((v) => v.status === 'fail' && !v.milestone).map((v) => v.rule),
    };
  };

  it('the oracle waits for the record, acts on it and succeeds; the trap is caught; idle fails', async () => {
    const scenario = harness.scenario('restock');
    expect(await play(planned('oracle', scenario.oracle!.steps), 4)).toEqual({
      status: 'succeeded',
      agentError: undefined,
      passed: true,
      broken: [],
    });
    const trap = scenario.traps[0];
    expect(await play(planned(`trap:${trap.id}`, trapSteps(scenario.oracle, trap)), 4)).toMatchObject({
      status: 'failed',
      passed: false,
      broken: ['never-discontinue'],
    });
    expect(await play(referenceAgents.get('idle')!, 4)).toMatchObject({ status: 'failed', passed: false, broken: [] });
  });
});
