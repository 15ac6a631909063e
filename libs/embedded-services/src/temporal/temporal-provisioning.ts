import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import type { TestWorkflowEnvironment } from '@temporalio/testing';

import { MirrorConfig } from '@libs/config';

import { ServiceLog } from '../process/logger';
import { isPortOpen, isProcessAlive } from '../process/ports';
import { locateTemporalCli, LocatedTemporalCli } from './temporal-cli-locator';

export interface RunningTemporal {
  address: string;
  namespace: string;
  source:
    | 'TEMPORAL_ADDRESS'
    | `dev server (${LocatedTemporalCli['source']})`
    | 'dev server (shared with another Mirror process)';
  stop(): Promise<void>;
}

export interface DevServerOptions {
  cli: LocatedTemporalCli;
  /** Persist workflow histories here; in memory when absent (tests). */
  dbFile?: string;
  namespace: string;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** Resolves once the frontend answers a gRPC call, not just accepts a connection. */
const waitForFrontend = async (address: string, child: ChildProcess, timeoutMs: number): Promise<void> => {
  const { Connection } = await import('@temporalio/client');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`the Temporal dev server exited with ${child.exitCode}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(`the Temporal dev server did not answer on ${address}: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
};

/**
 * Starts the Temporal CLI dev server (a real Temporal server with SQLite). With a CLI executable it is spawned here,
 * its output going to a log file: the CLI prints a banner on stdout, which would break `--json` output. Without one
 * (the SDK downloads it) the SDK's launcher starts it. Either way on free ports, ready when the frontend answers.
 */
export const startTemporalDevServer = async (options: DevServerOptions, log: ServiceLog): Promise<RunningTemporal> => {
  const started = performance.now();
  if (options.dbFile) {
    fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
  }
  if (options.cli.executable) {
    const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const logFile = options.dbFile
      ? path.join(path.dirname(options.dbFile), 'temporal.log')
      : path.join(os.tmpdir(), `mirror-temporal-${port}.log`);
    const output = fs.openSync(logFile, 'a');
    const child = spawn(
      options.cli.executable,
      [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--http-port',
        String(httpPort),
        '--metrics-port',
        String(metricsPort),
        '--headless',
        '--namespace',
        options.namespace,
        '--log-level',
        'warn',
        ...(options.dbFile ? ['--db-filename', options.dbFile] : []),
      ],
      { stdio: ['ignore', output, output] },
    );
    fs.closeSync(output);
    const address = `127.0.0.1:${port}`;
    try {
      await waitForFrontend(address, child, 60_000);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    log.log(
      `temporal: dev server listening on ${address} (${Math.round(performance.now() - started)} ms, log ${logFile})`,
    );
    return {
      address,
      namespace: options.namespace,
      source: `dev server (${options.cli.source})`,
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) {
            resolve();
            return;
          }
          const force = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    };
  }
  const { TestWorkflowEnvironment: Environment } = await import('@temporalio/testing');
  const environment: TestWorkflowEnvironment = await Environment.createLocal({
    server: {
      executable: { type: 'cached-download' },
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
  // One dev server per data folder: its SQLite file can be opened by one server only, so a second Mirror process
  // (a `mirror run` beside a `mirror check`) uses the server the first one started, as it does the embedded database.
  const lockFile = path.join(config.MIRROR_DATA_DIR, 'temporal.lock');
  const existing = readTemporalLock(lockFile);
  if (
    existing &&
    existing.pid !== process.pid &&
    existing.namespace === config.TEMPORAL_NAMESPACE &&
    isProcessAlive(existing.pid) &&
    (await isPortOpen(Number(existing.address.split(':').pop())))
  ) {
    log.log(`temporal: using the dev server started by process ${existing.pid} on ${existing.address}`);
    return {
      address: existing.address,
      namespace: existing.namespace,
      source: 'dev server (shared with another Mirror process)',
      stop: () => Promise.resolve(),
    };
  }
  const cli = await locateTemporalCli({ searchPath: process.env.PATH, cacheDir: config.MIRROR_CACHE_DIR, log });
  const running = await startTemporalDevServer(
    { cli, namespace: config.TEMPORAL_NAMESPACE, dbFile: path.join(config.MIRROR_DATA_DIR, 'temporal.sqlite') },
    log,
  );
  fs.writeFileSync(
    lockFile,
    JSON.stringify({ pid: process.pid, address: running.address, namespace: running.namespace } satisfies TemporalLock),
  );
  return {
    ...running,
    stop: async () => {
      await running.stop();
      if (readTemporalLock(lockFile)?.pid === process.pid) {
        fs.rmSync(lockFile, { force: true });
      }
    },
  };
};

interface TemporalLock {
  pid: number;
  address: string;
  namespace: string;
}

const readTemporalLock = (file: string): TemporalLock | undefined => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as TemporalLock;
  } catch {
    return undefined;
  }
};
