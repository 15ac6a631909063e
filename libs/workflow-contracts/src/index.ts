/** Names shared by every Temporal client and worker of Mirror: task queues, workflow inputs and outputs. */
export const taskQueues = {
  episodes: 'mirror-episodes',
  /** Rollouts played by scaled-out workers (`MIRROR_GATEWAY_URL`), of any stack version stored in the database. */
  rollouts: 'mirror-rollouts',
} as const;

/** The rollout queue of workers whose episode queue is `episodeQueue` (a test's own, or the built-in one). */
export const sharedRolloutTaskQueue = (episodeQueue?: string): string =>
  episodeQueue === undefined ? taskQueues.rollouts : `${episodeQueue}.rollouts`;

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
export * from './transcript';
