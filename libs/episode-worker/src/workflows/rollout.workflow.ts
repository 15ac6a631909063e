import {
  ActivityFailure,
  CancellationScope,
  continueAsNew,
  defineQuery,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';

import { RolloutEpisodeResult, RolloutReport, rolloutReport } from '@libs/rollouts';
import { RolloutInput, RolloutProgress, rolloutProgressQuery } from '@libs/workflow-contracts';

import type { RolloutActivities } from '../activities/rollout.activities';

export const progressQuery = defineQuery<RolloutProgress>(rolloutProgressQuery);

const { openRollout, recordTrial, closeRollout } = proxyActivities<RolloutActivities>({
  startToCloseTimeout: '1 minute',
});

// A trial is one whole episode, graded: minutes at most, but a stopped worker is noticed by its missing heartbeat
// long before the start-to-close timeout. Three attempts, then the trial counts as an infrastructure error.
const { playTrial } = proxyActivities<RolloutActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
});

const keyOf = (task: string, trial: number) => `${trial}#${task}`;

const failureMessage = (error: unknown): string => {
  const cause = error instanceof ActivityFailure ? (error.cause ?? error) : error;
  return cause instanceof Error ? cause.message : String(cause);
};

/**
 * Plays every task `trials` times with bounded concurrency, one activity per trial, and returns the report (also
 * stored). Its state is the trials done, so a worker restart loses nothing: Temporal replays the history on the next
 * worker and retries the trials that were running. Long rollouts hand their done trials over to a new run before the
 * history grows too large.
 */
export async function rolloutWorkflow(input: RolloutInput): Promise<RolloutReport> {
  // The tenant rides in the input, so any worker, of one tenant's deployment or of many, acts for the right one.
  const { done: carried, handOverAfter, tenantId, ...plan } = input;
  const done = new Map((carried ?? []).map((r) => [keyOf(r.task, r.trial), r]));
  const running = new Set<string>();
  const total = plan.tasks.length * plan.trials;
  let finished = false;
  setHandler(progressQuery, () => {
    const results = [...done.values()];
    return {
      total,
      done: done.size,
      running: running.size,
      passed: results.filter((r) => r.passed === true).length,
      infrastructureErrors: results.filter((r) => r.status === 'infrastructure_error').length,
      finished,
    };
  });
  if (!carried) {
    await openRollout(tenantId, plan);
  }
  const pending = plan.tasks
    .flatMap((task) => Array.from({ length: plan.trials }, (_, i) => ({ task, trial: i + 1 })))
    .filter(({ task, trial }) => !done.has(keyOf(task, trial)));
  let next = 0;
  let playedHere = 0;
  const handOver = () =>
    (handOverAfter !== undefined && playedHere >= handOverAfter) || workflowInfo().continueAsNewSuggested;
  const lane = async () => {
    while (next < pending.length && !handOver()) {
      const { task, trial } = pending[next++];
      const key = keyOf(task, trial);
      running.add(key);
      playedHere++;
      let result: RolloutEpisodeResult;
      try {
        result = await playTrial({
          tenantId,
          rolloutId: plan.id,
          stackVersion: plan.stackVersion,
          task,
          trial,
          agent: plan.agent,
        });
      } catch (error) {
        if (isCancellation(error)) {
          throw error;
        }
        result = await recordTrial(tenantId, plan.id, {
          task,
          trial,
          episodeId: null,
          status: 'infrastructure_error',
          passed: null,
          reward: null,
          violations: [],
          reason: `the trial could not be played: ${failureMessage(error)}`,
        });
      }
      running.delete(key);
      done.set(key, result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.concurrency, pending.length)) }, lane));
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => closeRollout(tenantId, plan.id, 'cancelled', null));
    }
    throw error;
  }
  if (done.size < total) {
    return continueAsNew<typeof rolloutWorkflow>({ ...input, done: [...done.values()] });
  }
  const order = new Map(plan.tasks.map((task, i) => [task, i]));
  const results = [...done.values()].sort((a, b) => order.get(a.task)! - order.get(b.task)! || a.trial - b.trial);
  const report = rolloutReport(results, { trials: plan.trials });
  await closeRollout(tenantId, plan.id, 'completed', report);
  finished = true;
  return report;
}
