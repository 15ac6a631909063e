import { Logger } from '@nestjs/common';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';

import { gatewayUrls, loadConfig, MirrorConfig, requireOperatorKey } from '@libs/config';
import { provideTemporal } from '@libs/embedded-services';
import { createRolloutWorker, createWorker, voiceFromConfig } from '@libs/episode-worker';
import { openDatabase, RolloutRepository } from '@libs/persistence';
import {
  collectProcessMetrics,
  currentTracing,
  temporalWorkerPlugins,
  tracingFromConfig,
  useConfiguredLogger,
} from '@libs/telemetry';
import { redactForLog } from '@libs/redaction';
import { sharedRolloutTaskQueue, taskQueues } from '@libs/workflow-contracts';

import { startHealthServer } from './health-server';
import { sharedGatewayTrials } from './shared-gateway-trials';

type Stops = (() => Promise<unknown>)[];

/**
 * With MIRROR_GATEWAY_URL, the worker also plays rollout trials (of any stored stack version) through those
 * gateways. It lets a trial it began run to its end when it stops, for MIRROR_STOP_GRACE_SECONDS (longer, the trial
 * is cut and Temporal plays it again elsewhere).
 */
const startTrialWorker = async (
  config: MirrorConfig,
  temporal: { address: string; namespace: string },
  connection: NativeConnection,
  logger: Logger,
  stops: Stops,
): Promise<Worker | undefined> => {
  const gateways = gatewayUrls(config);
  if (gateways.length === 0) {
    return undefined;
  }
  const database = await openDatabase(config, logger);
  stops.push(() => database.close());
  const clientConnection = await Connection.connect({ address: temporal.address });
  stops.push(() => clientConnection.close());
  const play = await sharedGatewayTrials({
    config,
    dataSource: database.dataSource,
    temporal: new Client({ connection: clientConnection, namespace: temporal.namespace }),
    gateways,
    episodeQueue: config.MIRROR_TASK_QUEUE ?? taskQueues.episodes,
    log: logger,
  });
  return createRolloutWorker({
    connection,
    namespace: temporal.namespace,
    taskQueue: sharedRolloutTaskQueue(config.MIRROR_TASK_QUEUE),
    // No tenant of its own: each rollout's input names whose it is.
    store: new RolloutRepository(database.dataSource),
    play,
    shutdownGraceTime: config.MIRROR_STOP_GRACE_SECONDS * 1000,
    // The rollout's workflow and trials in traces, each trial's episode linked to its trial.
    plugins: temporalWorkerPlugins(currentTracing()),
  });
};

/**
 * Runs the Temporal worker(s) until SIGTERM/SIGINT, then closes what it opened. On a signal the trial worker stops
 * first: its trials' episodes still need workflow tasks, so the episode worker keeps polling until they have ended.
 */
const main = async (): Promise<void> => {
  const config = loadConfig();
  useConfiguredLogger(config);
  const logger = new Logger('worker');
  const tracing = tracingFromConfig(config, 'mirror-worker');
  collectProcessMetrics();
  Runtime.install({ shutdownSignals: [] });
  const temporal = await provideTemporal(config, logger);
  const stops: Stops = [() => temporal.stop()];
  const connection = await NativeConnection.connect({ address: temporal.address });
  stops.push(() => connection.close());
  try {
    // MIRROR_TASK_QUEUE lets a test (or a deployment) point this worker at a queue of its own.
    const worker = await createWorker({
      connection,
      namespace: temporal.namespace,
      ...(config.MIRROR_TASK_QUEUE ? { taskQueue: config.MIRROR_TASK_QUEUE } : {}),
      voice: voiceFromConfig(config),
      operatorKey: requireOperatorKey(config),
      plugins: temporalWorkerPlugins(tracing),
    });
    const trials = await startTrialWorker(config, temporal, connection, logger, stops);
    logger.log(
      `polling ${temporal.address} (${temporal.source})${trials ? `, rollout trials through ${gatewayUrls(config).join(', ')}` : ''}`,
    );
    const health =
      config.MIRROR_HEALTH_PORT !== undefined
        ? await startHealthServer(worker, config.MIRROR_HEALTH_PORT, config.HOST)
        : undefined;
    const shutdown = (which: Worker | undefined): void => {
      if (which?.getState() === 'RUNNING') {
        which.shutdown();
      }
    };
    const stop = (): void => {
      logger.log('stopping: trials in progress run to their end');
      shutdown(trials ?? worker);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    try {
      // Either worker failing stops the other: a half-working process is worse than a restarted one.
      const trialsDone = trials?.run().finally(() => shutdown(worker));
      await Promise.all([worker.run().finally(() => shutdown(trials)), trialsDone]);
    } finally {
      health?.close();
    }
  } finally {
    for (const next of stops.reverse()) {
      await next().catch(() => undefined);
    }
    await tracing?.stop();
  }
};

main().catch((error: unknown) => {
  process.stderr.write(`worker: ${String(redactForLog(error instanceof Error ? error.message : String(error)))}\n`);
  process.exit(1);
});
