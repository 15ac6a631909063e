import 'reflect-metadata';

import { Logger } from '@nestjs/common';

import { loadConfig } from '@libs/config';
import { openDatabase } from '@libs/persistence';
import { redactForLog } from '@libs/redaction';
import { collectProcessMetrics, tracingFromConfig, useConfiguredLogger } from '@libs/telemetry';
import { sharedRolloutTaskQueue } from '@libs/workflow-contracts';
import { createApiApp } from '@api/bootstrap';

const bootstrap = async (): Promise<void> => {
  const config = loadConfig();
  const appLogger = useConfiguredLogger(config);
  const logger = new Logger('api');
  const tracing = tracingFromConfig(config, 'mirror-api');
  collectProcessMetrics();
  const database = await openDatabase(config, logger);
  const app = await createApiApp(config, database.dataSource, appLogger);
  const shutdown = async (): Promise<void> => {
    await app.close();
    await database.close();
    await tracing?.stop();
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  await app.listen(config.PORT, config.HOST);
  logger.log(`listening on http://${config.HOST}:${config.PORT}`);
  // Said at start-up, as the route would say it on every call.
  logger.log(
    config.TEMPORAL_ADDRESS
      ? `rollouts (POST /v1/rollouts) go to the workers polling ${sharedRolloutTaskQueue(config.MIRROR_TASK_QUEUE)} on ${config.TEMPORAL_ADDRESS}`
      : 'TEMPORAL_ADDRESS is unset: POST /v1/rollouts answers 503 until it is set',
  );
};

bootstrap().catch((error: unknown) => {
  process.stderr.write(`api: ${String(redactForLog(error instanceof Error ? error.message : String(error)))}\n`);
  process.exit(1);
});
