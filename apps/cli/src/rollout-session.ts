import { Client, WorkflowNotFoundError } from '@temporalio/client';

import { createRolloutWorker } from '@libs/episode-worker';
import { currentTracing, temporalWorkerPlugins } from '@libs/telemetry';
import { RolloutRepository } from '@libs/persistence';
import type { RolloutEpisodeResult, RolloutPlan, RolloutReport, RolloutStatus } from '@libs/rollouts';
import type { StackModel } from '@libs/stack-ingestion';
import {
  defaultTemporalPatienceMs,
  isTemporalUnreachable,
  patientWorkflowResult,
  startRolloutWorkflow,
} from '@libs/rollout-launch';
import {
  RolloutProgress,
  rolloutProgressQuery,
  RolloutResult,
  rolloutTaskQueue,
  rolloutWorkflowId,
} from '@libs/workflow-contracts';
import { UsageError } from '@cli/cli-output';
import type { EpisodeEnvironment } from '@cli/episode-environment';
import { progressBar } from '@cli/progress-bar';
import { rolloutAgents, trialPlayer } from '@cli/rollout-trials';

export interface RolloutOutcome {
  plan: RolloutPlan;
  status: RolloutStatus;
  report: RolloutReport;
  episodes: RolloutEpisodeResult[];
}

/** A stored rollout to resume: it must exist and be of the bundle's stack version. */
export const storedPlan = async (store: RolloutRepository, tenantId: string, id: string, version: string) => {
  const stored = await store.find(tenantId, id);
  if (!stored) {
    throw new UsageError(`--resume: no rollout ${id}`);
  }
  if (stored.stackVersion !== version) {
    throw new UsageError(
      `--resume: rollout ${id} plays stack version ${stored.stackVersion.slice(0, 12)}, the bundle is ${version.slice(0, 12)}`,
    );
  }
  const { status, report, createdAt: _createdAt, finishedAt: _finishedAt, ...plan } = stored;
  return { plan, status, report };
};

/** The rollout to play: a new plan, or a stored one taken up (`undefined` plan: it already has its report). */
export const rolloutToPlay = async (
  store: RolloutRepository,
  tenantId: string,
  version: string,
  request: { plan: RolloutPlan } | { resume: string },
): Promise<{ plan: RolloutPlan; resumed: boolean } | RolloutOutcome> => {
  const stored = 'resume' in request ? await storedPlan(store, tenantId, request.resume, version) : undefined;
  if (stored?.report) {
    const { plan, status, report } = stored;
    return { plan, status, report, episodes: await store.episodes(tenantId, plan.id) };
  }
  if (stored && stored.status !== 'running') {
    throw new UsageError(`--resume: rollout ${stored.plan.id} is ${stored.status}; it has no report`);
  }
  return stored
    ? { plan: stored.plan, resumed: true }
    : { plan: (request as { plan: RolloutPlan }).plan, resumed: false };
};

export interface FollowOptions {
  progress: boolean;
  log: (line: string) => void;
  /** Where the rollout's workflow is started (a new rollout): its workers poll this queue. */
  taskQueue: string;
  /** Settles when the workers this process runs stop (they would leave the result unanswered). */
  stopped?: Promise<unknown>;
  /** How to take it up again if this process stops. */
  resumeHint: string;
  /** How long Temporal may not answer before this process gives up (the workflow goes on; `resumeHint` takes it up). */
  temporalPatienceMs?: number;
}

/**
 * Starts a rollout's workflow (or finds the one being taken up), shows its progress, and returns the report once it
 * has ended. The workflow, not this process, owns the rollout: whichever workers poll its queue play its trials.
 */
export const followRollout = async (
  temporal: Client,
  store: RolloutRepository,
  tenantId: string,
  rollout: { plan: RolloutPlan; resumed: boolean },
  options: FollowOptions,
): Promise<RolloutOutcome> => {
  const { plan, resumed } = rollout;
  // A rollout handed to the workers already was started then; starting it again finds that one.
  const handle = resumed
    ? temporal.workflow.getHandle(rolloutWorkflowId(plan.id))
    : await startRolloutWorkflow(temporal, { tenantId, plan, taskQueue: options.taskQueue });
  options.log(
    `rollout ${plan.id}${resumed ? ' resumed' : ''}: ${plan.tasks.length} task${plan.tasks.length === 1 ? '' : 's'} × ${plan.trials} trial${plan.trials === 1 ? '' : 's'}, ${plan.concurrency} at once (if this process stops, ${options.resumeHint.replace('<id>', plan.id)} takes it up on the same Temporal)`,
  );
  const bar = options.progress ? progressBar(process.stderr) : undefined;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const progress = await handle.query<RolloutProgress>(rolloutProgressQuery).catch(() => undefined);
      if (progress && polling) {
        bar?.update(progress);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  // A Temporal restarting or paused under the long wait is asked again: the rollout plays on meanwhile.
  const waiting = new AbortController();
  const result = await Promise.race([
    patientWorkflowResult(() => handle.result() as Promise<RolloutResult>, {
      patienceMs: options.temporalPatienceMs ?? defaultTemporalPatienceMs,
      log: options.log,
      signal: waiting.signal,
    }),
    ...(options.stopped
      ? [
          options.stopped.then(() => {
            throw new Error('the rollout worker stopped before the rollout ended');
          }),
        ]
      : []),
  ])
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) {
        throw new UsageError(
          `--resume: rollout ${plan.id} has no workflow on this Temporal (an embedded Temporal ends with the command that started it): start a new rollout`,
        );
      }
      if (isTemporalUnreachable(error)) {
        throw new Error(
          `Temporal stopped answering while rollout ${plan.id} played (${(error as Error).message}); once it is back, ${options.resumeHint.replace('<id>', plan.id)} takes the rollout up`,
        );
      }
      throw error;
    })
    .finally(() => {
      polling = false;
      waiting.abort();
    });
  await poll;
  bar?.update({
    total: result.overall.episodes,
    done: result.overall.episodes,
    running: 0,
    passed: result.overall.passed,
    infrastructureErrors: result.overall.infrastructureErrors,
    finished: true,
  });
  bar?.end();
  // The workflow answers with the tallies; the report, with every task, is the one stored as the rollout closed.
  const stored = await store.find(tenantId, plan.id);
  if (!stored?.report) {
    throw new Error(`rollout ${plan.id} ended but has no stored report`);
  }
  return { plan, status: stored.status, report: stored.report, episodes: await store.episodes(tenantId, plan.id) };
};

/**
 * Starts a rollout (or takes up one whose worker died) on a worker of this process, shows its progress, and returns
 * the report once the workflow has ended. Any rollout worker of the same stack version on the same Temporal plays
 * its trials, so one that outlives this process can be resumed.
 */
export const playRollout = async (
  environment: EpisodeEnvironment,
  model: StackModel,
  version: string,
  request: { plan: RolloutPlan } | { resume: string },
  options: { progress: boolean; log: (line: string) => void },
): Promise<RolloutOutcome> => {
  const { dataSource, temporal, connection, namespace, tenantId } = environment.services;
  const store = new RolloutRepository(dataSource);
  const rollout = await rolloutToPlay(store, tenantId, version, request);
  if ('report' in rollout) {
    return rollout;
  }
  const worker = await createRolloutWorker({
    connection,
    namespace,
    tenantId,
    stackVersion: version,
    store,
    play: trialPlayer(environment, model, rolloutAgents()),
    // The rollout's workflow and trials in traces, each trial's episode linked to its trial.
    plugins: temporalWorkerPlugins(currentTracing()),
  });
  const working = worker.run();
  try {
    return await followRollout(temporal, store, tenantId, rollout, {
      ...options,
      taskQueue: rolloutTaskQueue(version),
      stopped: working,
      resumeHint: '`mirror rollout <bundle> --resume <id>`',
    });
  } finally {
    worker.shutdown();
    await working.catch(() => undefined);
  }
};
