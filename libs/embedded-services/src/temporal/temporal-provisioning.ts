import * as fs from 'node:fs';
import * as path from 'node:path';

import type { TestWorkflowEnvironment } from '@temporalio/testing';

import { MirrorConfig } from '@libs/config';

import { ServiceLog } from '../process/logger';
import { locateTemporalCli, LocatedTemporalCli } from './temporal-cli-locator';

export interface RunningTemporal {
  address: string;
  namespace: string;
  source: 'TEMPORAL_ADDRESS' | `dev server (${LocatedTemporalCli['source']})`;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  cli: LocatedTemporalCli;
  /** Persist workflow histories here; in memory when absent (tests). */
  dbFile?: string;
  namespace: string;
}

/**
 * Starts the Temporal CLI dev server (a real Temporal server with SQLite) through the SDK's ephemeral-server
 * launcher, which picks a free port, waits until the frontend answers and kills the child when we stop.
 */
export const startTemporalDevServer = async (options: DevServerOptions, log: ServiceLog): Promise<RunningTemporal> => {
  const { TestWorkflowEnvironment: Environment } = await import('@temporalio/testing');
  if (options.dbFile) {
    fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
  }
  const started = performance.now();
  const environment: TestWorkflowEnvironment = await Environment.createLocal({
    server: {
      executable: options.cli.executable
        ? { type: 'existing-path', path: options.cli.executable }
        : { type: 'cached-download' },
      namespace: options.namespace,
      ip: '127.0.0.1',
      ...(options.dbFile ? { dbFilename: options.dbFile } : {}),
    },
  });
  log.log(`temporal: dev server listening on ${environment.address} (${Math.round(performance.now() - started)} ms)`);
  return {
    address: environment.address,
    namespace: options.namespace,
    source: `dev server (${options.cli.source})`,
    stop: () => environment.teardown(),
  };
};

/** The Temporal cluster the apps use: TEMPORAL_ADDRESS when set, else a dev server under the data folder. */
export const provideTemporal = async (
  config: Pick<MirrorConfig, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'MIRROR_DATA_DIR' | 'MIRROR_CACHE_DIR'>,
  log: ServiceLog,
): Promise<RunningTemporal> => {
  if (config.TEMPORAL_ADDRESS) {
    log.log(`temporal: using TEMPORAL_ADDRESS (${config.TEMPORAL_ADDRESS})`);
    return {
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      source: 'TEMPORAL_ADDRESS',
      stop: () => Promise.resolve(),
    };
  }
  const cli = await locateTemporalCli({ searchPath: process.env.PATH, cacheDir: config.MIRROR_CACHE_DIR, log });
  return startTemporalDevServer(
    { cli, namespace: config.TEMPORAL_NAMESPACE, dbFile: path.join(config.MIRROR_DATA_DIR, 'temporal.sqlite') },
    log,
  );
};
