import * as path from 'node:path';

import { startEpisodeHarness } from '@test/support/episode-harness';
import { repositoryRoot } from '@test/support/cli-runner';
import { planAgent } from '@libs/reference-agents';
import type { PlanStep } from '@libs/stack-model';

import { gradeRun } from './episode-grading';
import { AgentForInstance, runEpisode } from './episode-runner';

/**
 * Real: the procurement example's single-supplier scenario, whose supplier is a declared negotiator (its tactic and
 * floor drawn by the seed), the twins behind the gateway, PostgreSQL, Temporal, the worker and the graders. The agent
 * is the generic plan agent playing plans written here: what the supplier agrees to is what its parameters say.
 */
describe('a declared negotiator', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({
      worker: true,
      bundle: path.join(repositoryRoot, 'examples', 'acme-manufacturing'),
    });
  });

  afterAll(() => harness.stop());

  const scenario = () => harness.scenario('single-supplier-negotiation');

  /** The scenario's oracle with every offer of the floor replaced by `price` (a CEL expression over the values). */
  const offering = (price: string): readonly PlanStep[] =>
    JSON.parse(
      JSON.stringify(scenario().oracle!.steps).replaceAll('{{reservation_price}}', `{{${price}}}`),
    ) as PlanStep[];

  const play = async (steps: readonly PlanStep[], seed: number) => {
    let values: Record<string, unknown> = {};
    const agent: AgentForInstance = {
      name: 'plan',
      forInstance: (instance, insight) => {
        values = instance.values;
        return planAgent('plan', steps, instance.values, insight);
      },
    };
    const outcome = await runEpisode(harness.context, harness.signals, scenario(), seed, agent);
    const grade = await gradeRun(harness.context, scenario(), seed, outcome.episodeId, outcome);
    return {
      values,
      // What Finance said: it asks once, when an order of the agent's first waits for approval (a state reaction).
      financeAsked: outcome.transcript.filter(
        (entry) => entry.kind === 'slack.message.posted' && entry.summary.includes('quoted competitively'),
      ).length,
      status: outcome.status,
      unitPrice: outcome.finalTerms?.unitPrice,
      broken: grade.verdicts.filter((v) => v.status === 'fail' && !v.milestone).map((v) => v.rule),
    };
  };

  it('agrees to its floor by its deadline, and acknowledges the order on it', async () => {
    const played = await play(scenario().oracle!.steps, 5);
    expect(played).toMatchObject({ status: 'succeeded', broken: [] });
    expect(played.unitPrice).toBe(played.values.reservation_price);
    expect(played.financeAsked).toBe((played.values.quantity as number) * played.unitPrice! > 1000 ? 1 : 0);
  });

  it('never agrees below its floor, and declines an order at a price it never stated', async () => {
    const played = await play(offering('reservation_price - 0.002'), 5);
    expect(played.status).toBe('failed');
    expect(played.broken).toContain('orders-on-agreed-terms');
    expect(played.unitPrice).toBeLessThan(played.values.reservation_price as number);
  });
});
