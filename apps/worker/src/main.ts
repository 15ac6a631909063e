import { Logger } from '@nestjs/common';
import { NativeConnection } from '@temporalio/worker';

import { loadConfig, requireOperatorKey } from '@libs/config';
import { provideTemporal } from '@libs/embedded-services';
import { createWorker, voiceFromConfig } from '@libs/episode-worker';
import { collectProcessMetrics, temporalWorkerPlugins, tracingFromConfig, useConfiguredLogger } from '@libs/telemetry';

import { startHealthServer } from './health-server';

/** Runs the Temporal worker until SIGTERM/SIGINT (the SDK stops it), then closes what it opened. */
const main = async (): Promise<void> => {
  const config = loadConfig();
  useConfiguredLogger(config);
  const logger = new Logger('worker');
  const tracing = tracingFromConfig(config, 'mirror-worker');
  collectProcessMetrics();
  const temporal = await provideTemporal(config, logger);
  const connection = await NativeConnection.connect({ address: temporal.address });
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
    logger.log(`polling ${temporal.address} (${temporal.source})`);
    const health =
      config.MIRROR_HEALTH_PORT !== undefined
        ? await startHealthServer(worker, config.MIRROR_HEALTH_PORT, config.HOST)
        : undefined;
    try {
      await worker.run();
    } finally {
      health?.close();
    }
  } finally {
    await connection.close();
    await temporal.stop();
    await tracing?.stop();
  }
};

main().catch((error: unknown) => {
  process.stderr.write(`worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
