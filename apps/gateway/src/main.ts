import { AddressInfo } from 'node:net';

import { Logger } from '@nestjs/common';

import { loadConfig, requireOperatorKey } from '@libs/config';
import {
  EpisodeCallLog,
  EpisodeCallRepository,
  openDatabase,
  PostgresEpisodeStore,
  RepositoryStackSource,
  StackRepository,
} from '@libs/persistence';
import { collectProcessMetrics, observeGateway, tracingFromConfig, useConfiguredLogger } from '@libs/telemetry';
import { gatewayRequestHandler, memoryBudgetOf, TwinEngine } from '@libs/twin-engine';
import { redactForLog } from '@libs/redaction';
import { builtInPacks } from '@twins/index';

import { drainingServer } from './draining-server';

/**
 * The twin gateway process: serves `/e/{episodeId}/{service}/…` for every episode in the database and manages
 * episodes under `/_mirror/`. Episodes are rebuilt from their event logs on first use, so any gateway process can
 * serve any episode and a crashed one loses nothing answered (a write is answered once its event is durable). Clients
 * keep each episode on one gateway at a time (`@libs/twin-client` gateway-pool), never spread over several.
 */
const main = async (): Promise<void> => {
  const config = loadConfig();
  useConfiguredLogger(config);
  const logger = new Logger('gateway');
  const tracing = tracingFromConfig(config, 'mirror-gateway');
  collectProcessMetrics();
  const operatorKey = requireOperatorKey(config);
  const database = await openDatabase(config, logger);
  const { dataSource } = database;
  // Reads leave no event in the log; they are recorded beside it, so reviewers see every call an agent made.
  const calls = new EpisodeCallLog(new EpisodeCallRepository(dataSource), (message) => logger.warn(message));
  const engine = new TwinEngine(
    new PostgresEpisodeStore(dataSource),
    new RepositoryStackSource(new StackRepository(dataSource)),
    builtInPacks,
    // Another gateway may serve an episode for a while (failover), so a copy unused for a while checks its log.
    { ...memoryBudgetOf(config.MIRROR_TWIN_MEMORY_MB), recheckAfterMs: config.MIRROR_GATEWAY_RECHECK_AFTER_MS },
    calls,
  );
  const { server, drain } = drainingServer(
    gatewayRequestHandler(engine, config.MIRROR_TENANT, { error: (message) => logger.error(message) }, operatorKey),
  );
  // Spans, latency metrics and log fields per request; `/metrics` for the holder of the operator key.
  observeGateway(server, { tenantId: config.MIRROR_TENANT, metricsKey: operatorKey });
  server.listen(config.GATEWAY_PORT, config.HOST, () => {
    // With GATEWAY_PORT=0 the system picks the port; report the real one.
    logger.log(`listening on http://${config.HOST}:${(server.address() as AddressInfo).port}`);
  });
  // SIGTERM: take no new connections, answer what is in flight (every write it answers is in the log), then close.
  const stop = (): void => {
    logger.log('draining: new connections refused, requests in flight answered');
    void drain(config.MIRROR_STOP_GRACE_SECONDS * 1000)
      .then(() => calls.close())
      .then(() => database.close())
      .then(() => tracing?.stop())
      .finally(() => logger.log('stopped'));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
};

main().catch((error: unknown) => {
  process.stderr.write(`gateway: ${String(redactForLog(error instanceof Error ? error.message : String(error)))}\n`);
  process.exit(1);
});
