/** Names shared by every Temporal client and worker of Mirror: task queues, workflow inputs and outputs. */
export const taskQueues = {
  episodes: 'mirror-episodes',
} as const;

export interface HealthCheckInput {
  /** Echoed back through an activity, proving the worker runs both workflow and activity code. */
  nonce: string;
}

export interface HealthCheckResult {
  nonce: string;
  workerIdentity: string;
}

export * from './business-time';
export * from './episode-workflow';
export * from './rollout-workflow';
