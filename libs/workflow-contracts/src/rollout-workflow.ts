import type { RolloutEpisodeResult, RolloutPlan } from '@libs/rollouts';

/** A rollout's workflow input. `done` carries the trials already played into a continued run (continue-as-new). */
export interface RolloutInput extends RolloutPlan {
  /** Whose rollout it is (its stored row's tenant): the workers that play it take the tenant from here alone. */
  tenantId: string;
  done?: RolloutEpisodeResult[];
  /** Hands over to a new run after this many trials in one run (tests); else when Temporal suggests it. */
  handOverAfter?: number;
}

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
