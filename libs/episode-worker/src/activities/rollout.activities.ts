import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';

import { RolloutEpisodeResult, RolloutPlan, RolloutReport, rolloutReport, RolloutStatus } from '@libs/rollouts';
import type { RolloutResult } from '@libs/workflow-contracts';

/** Where a rollout and its trials are kept (`RolloutRepository` in @libs/persistence). */
export interface RolloutStore {
  open(tenantId: string, plan: RolloutPlan): Promise<void>;
  episode(tenantId: string, rolloutId: string, task: string, trial: number): Promise<RolloutEpisodeResult | undefined>;
  /** Every recorded trial of the rollout, by task in the plan's order, then trial. */
  episodes(tenantId: string, rolloutId: string): Promise<RolloutEpisodeResult[]>;
  /** The stored plan's trials per task (the k of pass@k): undefined for a rollout not of this tenant. */
  find(tenantId: string, rolloutId: string): Promise<Pick<RolloutPlan, 'trials'> | undefined>;
  recordEpisode(tenantId: string, rolloutId: string, result: RolloutEpisodeResult): Promise<RolloutEpisodeResult>;
  close(
    tenantId: string,
    rolloutId: string,
    status: Exclude<RolloutStatus, 'running'>,
    report: RolloutReport | null,
  ): Promise<void>;
}

export interface RolloutTrial {
  /** The rollout's tenant, from its workflow input: whose stack, episodes and rows the trial reads and writes. */
  tenantId: string;
  rolloutId: string;
  stackVersion: string;
  task: string;
  trial: number;
  agent: string;
}

/** Plays one trial's episode with the agent and grades it (the command's episode environment does both). */
export type PlayTrial = (trial: RolloutTrial) => Promise<Omit<RolloutEpisodeResult, 'task' | 'trial'>>;

export interface RolloutActivityDependencies {
  /**
   * The one tenant this worker plays for, when it is bound to one (the command's own environment): a rollout of
   * another is refused. Absent on a scaled-out worker, which plays each rollout for the tenant its input names.
   */
  tenantId?: string;
  /**
   * The stack version this worker's environment serves: a trial of another is refused, never played on the wrong
   * twins. Absent on a scaled-out worker, whose `play` finds any version stored in the database (or refuses it).
   */
  stackVersion?: string;
  store: RolloutStore;
  play: PlayTrial;
  /** How often a playing trial tells Temporal it is alive (default 5 s; the workflow's heartbeat timeout is 30 s). */
  heartbeatMs?: number;
}

/** A rollout no retry can mend (it names no tenant, or one this worker does not play for): it fails at once. */
const refused = (message: string): ApplicationFailure =>
  ApplicationFailure.create({ type: 'ROLLOUT_TENANT_REFUSED', message, nonRetryable: true });

export const createRolloutActivities = (dependencies: RolloutActivityDependencies) => {
  /**
   * The tenant a rollout's activity acts for: the one its workflow input names, never this process's environment. A
   * rollout started before its input carried the tenant is taken only by a worker bound to one tenant.
   */
  const tenantOf = (requested: unknown): string => {
    const bound = dependencies.tenantId;
    if (typeof requested !== 'string' || requested.length === 0) {
      if (bound !== undefined) {
        return bound;
      }
      throw refused('the rollout names no tenant: a worker that plays for many tenants cannot tell whose it is');
    }
    if (bound !== undefined && requested !== bound) {
      throw refused(`this worker plays rollouts of tenant ${bound} only, not of ${requested}`);
    }
    return requested;
  };

  return {
    openRollout: (tenantId: string, plan: RolloutPlan): Promise<void> =>
      dependencies.store.open(tenantOf(tenantId), plan),

    /**
     * A trial recorded already is returned as it was: the activity is retried when a worker stops mid-trial, and a
     * trial must be played once. The episode runs to its end even if Temporal cancels the attempt (a worker shutting
     * down), so what it played is recorded and found by the retry instead of being played again.
     */
    playTrial: async (requested: RolloutTrial): Promise<RolloutEpisodeResult> => {
      const trial = { ...requested, tenantId: tenantOf(requested.tenantId) };
      if (dependencies.stackVersion !== undefined && trial.stackVersion !== dependencies.stackVersion) {
        throw new Error(
          `this worker serves stack version ${dependencies.stackVersion.slice(0, 12)}, not ${trial.stackVersion.slice(0, 12)}`,
        );
      }
      const recorded = await dependencies.store.episode(trial.tenantId, trial.rolloutId, trial.task, trial.trial);
      if (recorded) {
        return recorded;
      }
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), dependencies.heartbeatMs ?? 5_000);
      try {
        const played = await dependencies.play(trial);
        return await dependencies.store.recordEpisode(trial.tenantId, trial.rolloutId, {
          ...played,
          task: trial.task,
          trial: trial.trial,
        });
      } finally {
        clearInterval(beat);
      }
    },

    /** A trial whose every attempt failed: recorded as an infrastructure error (unless an attempt recorded it). */
    recordTrial: (tenantId: string, rolloutId: string, result: RolloutEpisodeResult): Promise<RolloutEpisodeResult> =>
      dependencies.store.recordEpisode(tenantOf(tenantId), rolloutId, result),

    closeRollout: (
      tenantId: string,
      rolloutId: string,
      status: Exclude<RolloutStatus, 'running'>,
      report: RolloutReport | null,
    ): Promise<void> => dependencies.store.close(tenantOf(tenantId), rolloutId, status, report),

    /**
     * Reports on every recorded trial, stores the report with the rollout as it closes, and gives the workflow the
     * overall tallies: the report lists every task, which for thousands of tasks is more than a workflow's payload
     * may hold.
     */
    completeRollout: async (tenantId: string, rolloutId: string): Promise<RolloutResult> => {
      const tenant = tenantOf(tenantId);
      const stored = await dependencies.store.find(tenant, rolloutId);
      if (!stored) {
        throw refused(`rollout ${rolloutId} is not one of tenant ${tenant}'s`);
      }
      const report = rolloutReport(await dependencies.store.episodes(tenant, rolloutId), { trials: stored.trials });
      await dependencies.store.close(tenant, rolloutId, 'completed', report);
      return { trials: report.trials, overall: report.overall };
    },
  };
};

export type RolloutActivities = ReturnType<typeof createRolloutActivities>;
