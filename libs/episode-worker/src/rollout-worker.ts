import { NativeConnection, Worker, WorkerOptions, WorkerPlugin } from '@temporalio/worker';

import { rolloutTaskQueue, sharedRolloutTaskQueue } from '@libs/workflow-contracts';

import { createRolloutActivities, RolloutActivityDependencies } from './activities/rollout.activities';
import { workflowCode } from './worker-factory';

/**
 * A worker that plays rollouts: of one stack version through the process's own episode environment (its episodes
 * run on that environment's worker), or, without `stackVersion`, of any stored version through shared gateways (a
 * scaled-out worker, on the shared rollout queue). `shutdownGraceTime`: how long a stopping worker lets its trials
 * run to their end before Temporal hands them to another worker.
 */
export const createRolloutWorker = async (
  options: RolloutActivityDependencies & {
    connection: NativeConnection;
    namespace: string;
    taskQueue?: string;
    plugins?: WorkerPlugin[];
    shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
    /** A file of the workflow code bundled beforehand (`createWorker`'s `workflowBundle`). */
    workflowBundle?: string;
  },
): Promise<Worker> => {
  const { connection, namespace, taskQueue, plugins, shutdownGraceTime, workflowBundle, ...dependencies } = options;
  return Worker.create({
    connection,
    namespace,
    taskQueue:
      taskQueue ??
      (dependencies.stackVersion !== undefined
        ? rolloutTaskQueue(dependencies.stackVersion)
        : sharedRolloutTaskQueue()),
    activities: createRolloutActivities(dependencies),
    ...(shutdownGraceTime !== undefined ? { shutdownGraceTime } : {}),
    ...(await workflowCode(plugins, workflowBundle)),
    ...(plugins ? { plugins } : {}),
  });
};
