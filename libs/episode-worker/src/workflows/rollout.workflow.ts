import {
  ActivityFailure,
  CancellationScope,
  continueAsNew,
  defineQuery,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';

import { RolloutEpisodeResult, rolloutReport } from '@libs/rollouts';
import { RolloutInput, RolloutProgress, rolloutProgressQuery, RolloutResult } from '@libs/workflow-contracts';

import type { RolloutActivities } from '../activities/rollout.activities';
import { fromRanges, toRanges } from './trial-ranges';

export const progressQuery = defineQuery<RolloutProgress>(rolloutProgressQuery);

const { openRollout, recordTrial, closeRollout, completeRollout } = proxyActivities<RolloutActivities>({
  startToCloseTimeout: '1 minute',
});

/**
 * Runs hand over the trials they played as ranges and counts, and the closing activity reports from the database
 * (runs recorded before this carried every result and reported in the workflow: they replay that way).
 */
const resultsInStore = 'rollout-results-in-store';

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
 * Plays every task `trials` times with bounded concurrency, one activity per trial, and returns the report's overall
 * tallies (the whole report is stored with the rollout). Its state is the trials done, so a worker restart loses
 * nothing: Temporal replays the history on the next worker and retries the trials that were running. Long rollouts
 * hand their done trials over to a new run before the history grows too large.
 */
export async function rolloutWorkflow(input: RolloutInput): Promise<RolloutResult> {
  // The tenant rides in the input, so any worker, of one tenant's deployment or of many, acts for the right one.
  const { done: carried, played, handOverAfter, tenantId, ...plan } = input;
  const trials = plan.tasks.flatMap((task) => Array.from({ length: plan.trials }, (_, i) => ({ task, trial: i + 1 })));
  const placeOf = new Map(trials.map(({ task, trial }, place) => [keyOf(task, trial), place]));
  // Results of this run (and of earlier runs that carried them in full); places and counts of every run.
  const results = new Map((carried ?? []).map((r) => [keyOf(r.task, r.trial), r]));
  const done = fromRanges(played?.ranges ?? []);
  let passed = played?.passed ?? 0;
  let infrastructureErrors = played?.infrastructureErrors ?? 0;
  const count = (result: RolloutEpisodeResult) => {
    const place = placeOf.get(keyOf(result.task, result.trial));
    if (place !== undefined && !done.has(place)) {
      done.add(place);
      passed += result.passed === true ? 1 : 0;
      infrastructureErrors += result.status === 'infrastructure_error' ? 1 : 0;
    }
  };
  results.forEach(count);
  const running = new Set<string>();
  const total = trials.length;
  let finished = false;
  setHandler(progressQuery, () => ({
    total,
    done: done.size,
    running: running.size,
    passed,
    infrastructureErrors,
    finished,
  }));
  if (!carried && !played) {
    await openRollout(tenantId, plan);
  }
  const pending = trials.filter((_, place) => !done.has(place));
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
      results.set(key, result);
      count(result);
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
  const inStore = patched(resultsInStore);
  if (done.size < total) {
    const { done: _results, ...rest } = input;
    return continueAsNew<typeof rolloutWorkflow>(
      inStore
        ? { ...rest, played: { ranges: toRanges(done), passed, infrastructureErrors } }
        : { ...input, done: [...results.values()] },
    );
  }
  let result: RolloutResult;
  if (inStore) {
    result = await completeRollout(tenantId, plan.id);
  } else {
    const order = new Map(plan.tasks.map((task, i) => [task, i]));
    const all = [...results.values()].sort((a, b) => order.get(a.task)! - order.get(b.task)! || a.trial - b.trial);
    const report = rolloutReport(all, { trials: plan.trials });
    await closeRollout(tenantId, plan.id, 'completed', report);
    result = report;
  }
  finished = true;
  return result;
}
