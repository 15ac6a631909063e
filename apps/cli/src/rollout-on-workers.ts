import { Client, Connection } from '@temporalio/client';

import { loadConfig } from '@libs/config';
import type { ServiceLog } from '@libs/embedded-services';
import { commandLineActor } from '@libs/evidence-trail';
import { openDatabase, RolloutRepository, StackRepository } from '@libs/persistence';
import {
  handRolloutToWorkers,
  queueHasWorkers,
  requirePlayableOnWorkers,
  RolloutLaunchError,
} from '@libs/rollout-launch';
import { RolloutPlan, scenariosOfTasks } from '@libs/rollouts';
import type { StackModel } from '@libs/stack-ingestion';
import { temporalClientInterceptors } from '@libs/telemetry';
import { sharedRolloutTaskQueue } from '@libs/workflow-contracts';
import { UsageError } from '@cli/cli-output';
import { followRollout, RolloutOutcome, rolloutToPlay } from '@cli/rollout-session';

/** What the command adds to a refusal of the workers: how to go on. */
const hints: Record<RolloutLaunchError['reason'], string> = {
  'temporal-unset': '',
  unreachable: '',
  'no-workers':
    ': start workers with MIRROR_GATEWAY_URL (and the same MIRROR_TASK_QUEUE), or play the rollout here without --on-workers',
  agent: '; play it here without --on-workers',
};

const asUsageError = (error: unknown): unknown =>
  error instanceof RolloutLaunchError && error.reason !== 'unreachable'
    ? new UsageError(`--on-workers: ${error.message}${hints[error.reason]}`)
    : error;

/**
 * Hands a rollout to the deployment's scaled-out workers (`mirror worker` with `MIRROR_GATEWAY_URL`) instead of
 * playing it in this process: the stack version is stored where they read it, the rollout is handed to their shared
 * queue as the control plane's `POST /v1/rollouts` hands it (@libs/rollout-launch), and this process only follows it
 * (it may stop; `--resume` follows it again). Their Temporal and database are the ones configured here: an embedded
 * one has no workers, so both must be named.
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
    const scenarios = scenariosOfTasks(request.plan.tasks).map(
      (id) => model.scenarios.find((s) => s.scenario.id === id)!.scenario,
    );
    try {
      requirePlayableOnWorkers(request.plan.agent, scenarios);
    } catch (error) {
      throw asUsageError(error);
    }
  }
  const address = config.TEMPORAL_ADDRESS!;
  const namespace = config.TEMPORAL_NAMESPACE;
  const taskQueue = sharedRolloutTaskQueue(config.MIRROR_TASK_QUEUE);
  const database = await openDatabase(config, options.serviceLog);
  const connection = await Connection.connect({ address }).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  try {
    const temporal = new Client({ connection, namespace, interceptors: temporalClientInterceptors() });
    const store = new RolloutRepository(database.dataSource);
    const rollout = await rolloutToPlay(store, config.MIRROR_TENANT, version, request);
    if ('report' in rollout) {
      return rollout;
    }
    const tenantId = config.MIRROR_TENANT;
    // A rollout no worker takes would wait forever without a word: refuse it while nothing polls their queue (before
    // the stack is stored; handing the rollout over asks again).
    if (!(await queueHasWorkers(temporal, namespace, taskQueue))) {
      throw asUsageError(new RolloutLaunchError('no-workers', `no worker polls ${taskQueue} on ${address}`));
    }
    if (!rollout.resumed) {
      // The workers find the stack by its version in the database (idempotent: a version is its content's hash).
      await new StackRepository(database.dataSource).saveVersion(tenantId, version, model, {
        actor: commandLineActor(),
        actorKind: 'trainer',
      });
      await handRolloutToWorkers(temporal, store, {
        tenantId,
        plan: rollout.plan,
        namespace,
        taskQueue,
        address,
      }).catch((error: unknown) => {
        throw asUsageError(error);
      });
    }
    return await followRollout(temporal, store, tenantId, rollout, {
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
