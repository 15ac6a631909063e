import { Client, Connection } from '@temporalio/client';

import { loadConfig } from '@libs/config';
import type { ServiceLog } from '@libs/embedded-services';
import { commandLineActor } from '@libs/evidence-trail';
import { scaledOutAgent, scaledOutAgentNames } from '@libs/episode-worker';
import { openDatabase, RolloutRepository, StackRepository } from '@libs/persistence';
import type { RolloutPlan } from '@libs/rollouts';
import type { StackModel } from '@libs/stack-ingestion';
import { temporalClientInterceptors } from '@libs/telemetry';
import { sharedRolloutTaskQueue } from '@libs/workflow-contracts';
import { UsageError } from '@cli/cli-output';
import { followRollout, RolloutOutcome, rolloutToPlay } from '@cli/rollout-session';

/** Activity task queues, in Temporal's `TaskQueueType` (the trials are activities; the workflow's pollers alone play none). */
const activityQueue = 2;

/**
 * Hands a rollout to the deployment's scaled-out workers (`mirror worker` with `MIRROR_GATEWAY_URL`) instead of
 * playing it in this process: the stack version is stored where they read it, the rollout's workflow is started on
 * their shared queue, and this process only follows it (it may stop; `--resume` follows it again). Their Temporal and
 * database are the ones configured here: an embedded one has no workers, so both must be named.
 */
export const playRolloutOnWorkers = async (
  model: StackModel,
  version: string,
  request: { plan: RolloutPlan } | { resume: string },
  options: { progress: boolean; log: (line: string) => void; serviceLog: ServiceLog },
): Promise<RolloutOutcome> => {
  const config = loadConfig();
  const missing = (['TEMPORAL_ADDRESS', 'DATABASE_URL'] as const).filter((name) => !config[name]);
  if (missing.length > 0) {
    throw new UsageError(
      `--on-workers hands the rollout to the workers of a deployment: set ${missing.join(' and ')} to the ones they use`,
    );
  }
  if ('plan' in request) {
    for (const scenario of new Set(request.plan.tasks.map((t) => t.slice(0, t.lastIndexOf('@'))))) {
      const found = model.scenarios.find((s) => s.scenario.id === scenario)!.scenario;
      if (!scaledOutAgent(request.plan.agent, found)) {
        throw new UsageError(
          `--on-workers: the workers play ${scaledOutAgentNames().join(', ')} (oracle only of a scenario that has one), not "${request.plan.agent}" for ${scenario}; play it here without --on-workers`,
        );
      }
    }
  }
  const taskQueue = sharedRolloutTaskQueue(config.MIRROR_TASK_QUEUE);
  const database = await openDatabase(config, options.serviceLog);
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS! }).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  try {
    const temporal = new Client({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      interceptors: temporalClientInterceptors(),
    });
    const store = new RolloutRepository(database.dataSource);
    const rollout = await rolloutToPlay(store, config.MIRROR_TENANT, version, request);
    if ('report' in rollout) {
      return rollout;
    }
    // A rollout no worker takes would wait forever without a word: refuse it while nothing polls their queue.
    const { pollers } = await temporal.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: taskQueue },
      taskQueueType: activityQueue,
    });
    if (pollers.length === 0) {
      throw new UsageError(
        `--on-workers: no worker polls ${taskQueue} on ${config.TEMPORAL_ADDRESS}: start workers with MIRROR_GATEWAY_URL (and the same MIRROR_TASK_QUEUE), or play the rollout here without --on-workers`,
      );
    }
    // The workers find the stack by its version in the database (idempotent: a version is its content's hash).
    await new StackRepository(database.dataSource).saveVersion(config.MIRROR_TENANT, version, model, {
      actor: commandLineActor(),
      actorKind: 'trainer',
    });
    return await followRollout(temporal, store, config.MIRROR_TENANT, rollout, {
      progress: options.progress,
      log: options.log,
      taskQueue,
      resumeHint: '`mirror rollout <bundle> --on-workers --resume <id>`',
    });
  } finally {
    await connection.close();
    await database.close();
  }
};
