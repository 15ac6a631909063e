import { Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';

import type { RolloutRepository } from '@libs/persistence';
import type { RolloutPlan } from '@libs/rollouts';
import { RolloutInput, rolloutWorkflowId, rolloutWorkflowType } from '@libs/workflow-contracts';

import { RolloutLaunchError } from './rollout-launch-error';

/** Activity task queues, in Temporal's `TaskQueueType` (the trials are activities; the workflow's pollers alone play none). */
const activityQueue = 2;

/** Whether any worker polls `taskQueue` for trials now. */
export const queueHasWorkers = async (temporal: Client, namespace: string, taskQueue: string): Promise<boolean> => {
  const { pollers } = await temporal.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: activityQueue,
  });
  return pollers.length > 0;
};

/**
 * Starts a rollout's workflow on `taskQueue`, once: its id is the rollout's, and a second start of the same rollout
 * (a retried request, a follower taking up what was just handed over) finds the first instead of playing it again.
 */
export const startRolloutWorkflow = async (
  temporal: Client,
  rollout: { tenantId: string; plan: RolloutPlan; taskQueue: string },
) => {
  const workflowId = rolloutWorkflowId(rollout.plan.id);
  try {
    return await temporal.workflow.start(rolloutWorkflowType, {
      args: [{ ...rollout.plan, tenantId: rollout.tenantId } satisfies RolloutInput],
      taskQueue: rollout.taskQueue,
      workflowId,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      return temporal.workflow.getHandle(workflowId);
    }
    throw error;
  }
};

/**
 * Hands a new rollout to the workers polling `taskQueue`: refused while none polls it (it would wait without a word),
 * else stored under `tenantId` (opened once, whoever retries) and started. A rollout stored whose workflow could not
 * be started is closed as cancelled, so nothing is left "running" that nothing plays.
 */
export const handRolloutToWorkers = async (
  temporal: Client,
  store: RolloutRepository,
  rollout: { tenantId: string; plan: RolloutPlan; namespace: string; taskQueue: string; address: string },
): Promise<void> => {
  const polled = await queueHasWorkers(temporal, rollout.namespace, rollout.taskQueue).catch((error: unknown) => {
    throw new RolloutLaunchError(
      'unreachable',
      `Temporal at ${rollout.address} did not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  if (!polled) {
    throw new RolloutLaunchError('no-workers', `no worker polls ${rollout.taskQueue} on ${rollout.address}`);
  }
  await store.open(rollout.tenantId, rollout.plan);
  try {
    await startRolloutWorkflow(temporal, rollout);
  } catch (error) {
    await store.close(rollout.tenantId, rollout.plan.id, 'cancelled', null);
    throw new RolloutLaunchError(
      'unreachable',
      `the rollout's workflow could not be started on ${rollout.address}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
};
