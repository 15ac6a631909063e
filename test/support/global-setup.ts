import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { DefaultLogger } from '@temporalio/worker';

import {
  locateTemporalCli,
  RunningDatabase,
  RunningTemporal,
  startLocalPostgresCluster,
  startTemporalDevServer,
  stderrLog,
} from '@libs/embedded-services';
import { bundleWorkflows } from '@libs/episode-worker';

import { migrateTemplate } from './test-services';
import { runCacheVariable, workflowBundleFile } from './run-cache';

declare global {
  var mirrorTestServices: { database?: RunningDatabase; temporal?: RunningTemporal; runCache?: string } | undefined;
}

/**
 * Starts the real services the integration and e2e tiers need, once per run: PostgreSQL (the server in
 * MIRROR_TEST_DATABASE_SERVER or DATABASE_URL if given, else a throw-away local cluster) and a Temporal dev server
 * (TEMPORAL_ADDRESS if given); and the run's cache (`run-cache.ts`), the workflow code bundled from the sources in it
 * while the services start. A unit-only run (MIRROR_TEST_SERVICES=none) starts nothing.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.MIRROR_TEST_SERVICES === 'none') {
    return;
  }
  const log = { log: (message: string) => stderrLog.log(`[test services] ${message}`) };
  const runCache = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-test-run-'));
  globalThis.mirrorTestServices = { runCache };
  process.env[runCacheVariable] = runCache;
  const bundled = bundleWorkflows(new DefaultLogger('WARN')).then(({ code }) =>
    fs.writeFileSync(workflowBundleFile(runCache), code),
  );
  bundled.catch(() => undefined); // awaited below, once the services are up
  try {
    await startServices(log);
    await bundled;
  } catch (error) {
    // jest runs no teardown after a failed setup: the cache would be left behind.
    await bundled.catch(() => undefined);
    fs.rmSync(runCache, { recursive: true, force: true });
    throw error;
  }
}

const startServices = async (log: { log: (message: string) => void }): Promise<void> => {
  let server = process.env.MIRROR_TEST_DATABASE_SERVER ?? process.env.DATABASE_URL;
  if (!server) {
    const database = await startLocalPostgresCluster(log);
    globalThis.mirrorTestServices!.database = database;
    server = database.url;
  }
  process.env.MIRROR_TEST_DATABASE_SERVER = server;
  await migrateTemplate(server);

  if (!process.env.TEMPORAL_ADDRESS) {
    const cacheDir = process.env.MIRROR_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'mirror');
    const cli = await locateTemporalCli({ searchPath: process.env.PATH, cacheDir, log });
    const temporal = await startTemporalDevServer({ cli, namespace: 'default' }, log);
    globalThis.mirrorTestServices!.temporal = temporal;
    process.env.TEMPORAL_ADDRESS = temporal.address;
    process.env.MIRROR_TEST_TEMPORAL_SOURCE = temporal.source;
  }
};
