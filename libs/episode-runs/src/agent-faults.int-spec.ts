import { startEpisodeHarness } from '@test/support/episode-harness';
import { ReferenceAgent, referenceAgents } from '@libs/reference-agents';

import { gradeRun } from './episode-grading';
import { runEpisode } from './episode-runner';

/**
 * Failures the agent provokes are its own: after doing the whole task, an agent that crashes, that acts after it was
 * told the episode ended, or that will not stop, earns nothing and is flagged with the reason. Real: twins,
 * PostgreSQL, Temporal, the worker, the graders.
 */
describe('an agent’s own failures', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;
  const scenarioId = 'single-supplier-negotiation';
  const seed = 8;
  const diligent = referenceAgents.get('diligent')!;

  beforeAll(async () => {
    harness = await startEpisodeHarness({ worker: true });
  });

  afterAll(() => harness.stop());

  const play = async (agent: ReferenceAgent, options: { stopGraceMs?: number } = {}) => {
    const scenario = harness.scenario(scenarioId);
    const outcome = await runEpisode(harness.context, harness.signals, scenario, seed, agent, options);
    const grade = await gradeRun(harness.context, scenario, seed, outcome.episodeId, outcome);
    const events = await harness.context.engine.events(harness.context.tenantId, outcome.episodeId, 0);
    return { outcome, grade, events };
  };

  it('crashing after the whole task earns 0, graded (not an infrastructure error) and flagged', async () => {
    const { outcome, grade } = await play({
      name: 'crashes-at-the-end',
      run: async (session) => {
        await diligent.run(session);
        throw new Error('out of memory, say');
      },
    });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.agentError).toBe('the agent stopped with an error: out of memory, say');
    expect(grade).toMatchObject({ status: 'graded', reward: 0, passed: false });
    expect(grade.verdicts.find((v) => v.rule === 'agent-ran-to-its-end')).toMatchObject({
      status: 'fail',
      evidence: [{ excerpt: 'the agent stopped with an error: out of memory, say' }],
    });
  });

  it('a write after finish never reaches the twins, and earns 0 even when the agent swallows the refusal', async () => {
    const { outcome, grade, events } = await play({
      name: 'cancels-after-finish',
      run: async (session) => {
        await diligent.run(session);
        // finish again is allowed (it returns the same outcome); a twin call is not.
        const ended = await session.finish();
        await session.erp(`/purchase-orders/${ended.finalTerms?.poId}/cancel`, { body: {} }).catch(() => undefined);
      },
    });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.agentError).toMatch(/^erp POST \/purchase-orders\/PO-[\d-]+\/cancel after the episode ended$/);
    expect(grade).toMatchObject({ reward: 0, passed: false });
    const cancels = events.filter((e) => /cancel/i.test(JSON.stringify(e.event)));
    expect(cancels).toEqual([]);
  });

  it('an agent that will not stop is left behind once its episode ended, and earns 0', async () => {
    const { outcome, grade } = await play(
      {
        name: 'never-returns',
        run: async (session) => {
          await referenceAgents.get('idle')!.run(session);
          await new Promise<void>(() => undefined);
        },
      },
      { stopGraceMs: 500 },
    );
    expect(outcome.agentError).toBe('the agent was still running 0.5 s after the episode ended');
    expect(grade).toMatchObject({ reward: 0, passed: false });
  });
});
