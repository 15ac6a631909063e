import { NativeConnection, Worker, WorkerPlugin } from '@temporalio/worker';

import { rolloutTaskQueue } from '@libs/workflow-contracts';

import { createRolloutActivities, RolloutActivityDependencies } from './activities/rollout.activities';
import { workflowBundling } from './worker-factory';

/**
 * A worker that plays rollouts of one stack version: the rollout workflow and its activities, which play episodes
 * through the process's own episode environment (its episodes run on that environment's worker).
 */
export const createRolloutWorker = (
  options: RolloutActivityDependencies & {
    connection: NativeConnection;
    namespace: string;
    taskQueue?: string;
    plugins?: WorkerPlugin[];
  },
): Promise<Worker> => {
  const { connection, namespace, taskQueue, plugins, ...dependencies } = options;
  return Worker.create({
    connection,
    namespace,
    taskQueue: taskQueue ?? rolloutTaskQueue(dependencies.stackVersion),
    activities: createRolloutActivities(dependencies),
    ...workflowBundling(),
    ...(plugins ? { plugins } : {}),
  });
};
