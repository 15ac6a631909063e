import { startEpisodeHarness } from '@test/support/episode-harness';
import { referenceAgents } from '@libs/reference-agents';
import type { ReferenceAgent } from '@libs/reference-agents';

import { gradeRun } from './episode-grading';
import { AgentForInstance, runEpisode, workflowIdOf } from './episode-runner';

/**
 * Real: the example company's stack on the twins behind an HTTP gateway, PostgreSQL event logs, the Temporal dev
 * server (its default limits: 2,000 updates a run, continue-as-new suggested past 4 MB or ~4,000 events) with the
 * worker's episode workflow and persona activities, the diligent reference agent, the graders. Mocked: nothing.
 */
/** The bytes of the payloads a history event carries (its inputs, results and markers), found wherever they nest. */
const payloadBytes = (value: unknown): number =>
  value instanceof Uint8Array
    ? value.byteLength
    : value !== null && typeof value === 'object'
      ? Object.values(value).reduce((sum: number, v) => sum + payloadBytes(v), 0)
      : 0;

describe('an episode of 5,000 agent actions', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({ worker: true });
  });

  afterAll(() => harness.stop());

  /**
   * An agent that first posts `posts` Slack messages, waiting (zero business days: no time passes) after each of the
   * first `waits`, then plays the diligent agent's plan: thousands of updates and signals, then a task to finish.
   */
  const busyThenDiligent = (posts: number, waits: number): AgentForInstance => ({
    name: 'busy-then-diligent',
    forInstance: (): ReferenceAgent => ({
      name: 'busy-then-diligent',
      async run(session) {
        const { channels } = await session.slack<{ ok: boolean; channels: { id: string; name: string }[] }>(
          'conversations.list',
          {},
        );
        const channel = (channels.find((c) => c.name === 'general') ?? channels[0]).id;
        for (let i = 0; i < posts; i++) {
          const posted = await session.slack('chat.postMessage', { channel, text: `Status note ${i + 1}.` });
          if (!posted.ok) {
            throw new Error(`post ${i + 1} refused: ${posted.error}`);
          }
          if (i < waits) {
            await session.wait(0);
          }
        }
        await (referenceAgents.get('diligent') as ReferenceAgent).run(session);
      },
    }),
  });

  it('hands over to new runs before Temporal’s limits, and ends graded as the short episode does', async () => {
    const base = harness.scenario('single-supplier-negotiation');
    const scenario = { ...base, horizon: { ...base.horizon, max_agent_actions: 6000, wall_clock_minutes: 120 } };
    // 5,000 agent actions; the waits are the updates. Hand-over every 250 updates (the default, 1,000, is what keeps a
    // run under Temporal's 2,000): four hand-overs at a quarter of the updates, so the suite stays within its time.
    const posts = 4300;
    const waits = 700;
    const updatesPerRun = 250;

    const outcome = await runEpisode(harness.context, harness.signals, scenario, 1, busyThenDiligent(posts, waits), {
      continueAsNewAfterUpdates: updatesPerRun,
    });

    expect(outcome.agentActions).toBeGreaterThanOrEqual(posts + waits);
    expect(outcome.status).toBe('succeeded');
    expect(outcome.finalTerms?.status).toBe('acknowledged');
    const grade = await gradeRun(harness.context, scenario, 1, outcome.episodeId, outcome);
    const short = await runEpisode(harness.context, harness.signals, scenario, 1, referenceAgents.get('diligent')!);
    const shortGrade = await gradeRun(harness.context, scenario, 1, short.episodeId, short);
    expect(grade.status).toBe('graded');
    expect({ passed: grade.passed, reward: grade.reward }).toEqual({
      passed: shortGrade.passed,
      reward: shortGrade.reward,
    });
    expect(grade.passed).toBe(true);

    // Walked back from the last run: every update counted, never more than the hand-over threshold in one run.
    const runs: { updates: number; largestEvent: number }[] = [];
    let runId: string | undefined;
    do {
      const history = await harness.context.temporal.workflow
        .getHandle(workflowIdOf(outcome.episodeId), runId)
        .fetchHistory();
      const events = history.events ?? [];
      runs.push({
        updates: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
        largestEvent: Math.max(...events.map(payloadBytes)),
      });
      runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    } while (runId);
    const updates = runs.reduce((sum, run) => sum + run.updates, 0);
    expect(updates).toBeGreaterThan(waits);
    expect(runs.length).toBeGreaterThan(2);
    expect(Math.max(...runs.map((run) => run.updates))).toBeLessThanOrEqual(updatesPerRun);
    // Nothing recorded grows with the episode: the log is read a page at a time and the story is not carried, so no
    // event of the history comes near Temporal's payload limits (a warning at 512 KB, refused at 2 MB). Reading all
    // 4,300 posts at once made an 843 KB event; carrying the story, hand-overs of 600 KB.
    expect(Math.max(...runs.map((run) => run.largestEvent))).toBeLessThan(512 * 1024);
    process.stdout.write(
      `${outcome.agentActions} agent actions, ${updates} updates over ${runs.length} runs, reward ${grade.reward}, largest history event ${Math.max(...runs.map((run) => run.largestEvent))} bytes\n`,
    );
  }, 3_600_000);
});
