/**
 * Why a rollout was not handed to the workers: `temporal-unset` (this process knows no Temporal), `no-workers` (none
 * polls the queue), `unreachable` (Temporal did not answer), `agent` (the workers cannot play it).
 */
export type RolloutLaunchRefusal = 'temporal-unset' | 'no-workers' | 'unreachable' | 'agent';

export class RolloutLaunchError extends Error {
  constructor(
    readonly reason: RolloutLaunchRefusal,
    message: string,
  ) {
    super(message);
  }
}
