import * as os from 'node:os';
import * as path from 'node:path';

import {
  locateTemporalCli,
  RunningDatabase,
  RunningTemporal,
  startLocalPostgresCluster,
  startTemporalDevServer,
  stderrLog,
} from '@libs/embedded-services';

import { migrateTemplate } from './test-services';

declare global {
  var mirrorTestServices: { database?: RunningDatabase; temporal?: RunningTemporal } | undefined;
}

/**
 * Starts the real services the integration and e2e tiers need, once per run: PostgreSQL (the server in
 * MIRROR_TEST_DATABASE_SERVER or DATABASE_URL if given, else a throw-away local cluster) and a Temporal dev server
 * (TEMPORAL_ADDRESS if given). A unit-only run (MIRROR_TEST_SERVICES=none) starts nothing.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.MIRROR_TEST_SERVICES === 'none') {
    return;
  }
  const log = { log: (message: string) => stderrLog.log(`[test services] ${message}`) };
  globalThis.mirrorTestServices = {};
  let server = process.env.MIRROR_TEST_DATABASE_SERVER ?? process.env.DATABASE_URL;
  if (!server) {
    const database = await startLocalPostgresCluster(log);
    globalThis.mirrorTestServices.database = database;
    server = database.url;
  }
  process.env.MIRROR_TEST_DATABASE_SERVER = server;
  await migrateTemplate(server);

  if (!process.env.TEMPORAL_ADDRESS) {
    const cacheDir = process.env.MIRROR_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'mirror');
    const cli = await locateTemporalCli({ searchPath: process.env.PATH, cacheDir, log });
    const temporal = await startTemporalDevServer({ cli, namespace: 'default' }, log);
    globalThis.mirrorTestServices.temporal = temporal;
    process.env.TEMPORAL_ADDRESS = temporal.address;
    process.env.MIRROR_TEST_TEMPORAL_SOURCE = temporal.source;
  }
}
