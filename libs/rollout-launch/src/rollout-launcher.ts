import { Client, Connection } from '@temporalio/client';

import type { RolloutRepository } from '@libs/persistence';
import type { RolloutPlan } from '@libs/rollouts';
import { temporalClientInterceptors } from '@libs/telemetry';

import { RolloutLaunchError } from './rollout-launch-error';
import { handRolloutToWorkers } from './workers-queue';

export interface RolloutLauncherOptions {
  /** The workers' Temporal frontend; unset, every launch is refused (the process still serves everything else). */
  address?: string;
  namespace: string;
  /** The workers' shared rollout queue. */
  taskQueue: string;
}

/**
 * A long-lived process's way of handing rollouts to the workers. It connects to Temporal on its first launch, not at
 * start-up, so a control plane whose Temporal is down (or not configured) still starts and serves its other routes.
 */
export class RolloutLauncher {
  private connection: Connection | undefined;
  private client: Client | undefined;

  constructor(
    private readonly options: RolloutLauncherOptions,
    private readonly store: RolloutRepository,
  ) {}

  /**
   * Throws `RolloutLaunchError` when the rollout cannot be handed over: nothing is stored then, but for a workflow
   * Temporal refused to start (the rollout stays stored, closed as cancelled).
   */
  async launch(tenantId: string, plan: RolloutPlan): Promise<void> {
    const { address, namespace, taskQueue } = this.options;
    if (address === undefined) {
      throw new RolloutLaunchError(
        'temporal-unset',
        'rollouts run on the workers through Temporal: set TEMPORAL_ADDRESS (and MIRROR_TASK_QUEUE if the workers use one) on this server',
      );
    }
    await handRolloutToWorkers(this.temporal(address), this.store, { tenantId, plan, namespace, taskQueue, address });
  }

  /** Nest calls it when the app closes; anything else may call `close` itself. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    await this.connection?.close();
    this.connection = undefined;
    this.client = undefined;
  }

  private temporal(address: string): Client {
    if (!this.client) {
      this.connection = Connection.lazy({ address });
      this.client = new Client({
        connection: this.connection,
        namespace: this.options.namespace,
        interceptors: temporalClientInterceptors(),
      });
    }
    return this.client;
  }
}
