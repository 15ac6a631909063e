import type { RolloutEpisodeResult, RolloutPlan, RolloutReport } from '@libs/rollouts';

/**
 * The trials a rollout has played, carried into a continued run (continue-as-new): which ones, as ranges of their
 * places in the plan's order (task by task, trial 1 to k), and the counts its progress shows. Their results stay in
 * the database, which the closing activity reports from: a run's input and result stay a few kilobytes, where
 * carrying every result (or returning a report with every task) passed Temporal's 2 MB payload limit near 5,000
 * trials.
 */
export interface RolloutDoneTrials {
  /** Inclusive [first, last] places in the plan's order, ascending and disjoint. */
  ranges: [number, number][];
  passed: number;
  infrastructureErrors: number;
}

/** A rollout's workflow input. */
export interface RolloutInput extends RolloutPlan {
  /** Whose rollout it is (its stored row's tenant): the workers that play it take the tenant from here alone. */
  tenantId: string;
  /** The trials played by earlier runs of this rollout (continue-as-new). */
  played?: RolloutDoneTrials;
  /** Earlier runs' results in full: only in the input of runs continued before `played` (still read). */
  done?: RolloutEpisodeResult[];
  /** Hands over to a new run after this many trials in one run (tests); else when Temporal suggests it. */
  handOverAfter?: number;
}

/**
 * What the workflow returns: the report's overall tallies (the whole report, with every task, is stored with the
 * rollout). Runs closed before the report moved to the database returned the whole report, which has these too.
 */
export type RolloutResult = Pick<RolloutReport, 'trials' | 'overall'>;

/** What `rolloutProgress` answers while the rollout runs. */
export interface RolloutProgress {
  total: number;
  done: number;
  running: number;
  passed: number;
  infrastructureErrors: number;
  finished: boolean;
}

/** The workflow's type and its progress query, by name: clients start and ask it without importing workflow code. */
export const rolloutWorkflowType = 'rolloutWorkflow';
export const rolloutProgressQuery = 'rolloutProgress';

export const rolloutWorkflowId = (rolloutId: string): string => `rollout-${rolloutId}`;

/**
 * Rollout workers of one stack version share a task queue: any of them can play any trial of a rollout of that
 * version, so a rollout outlives the worker that started it.
 */
export const rolloutTaskQueue = (stackVersion: string): string => `mirror-rollouts-${stackVersion.slice(0, 16)}`;
