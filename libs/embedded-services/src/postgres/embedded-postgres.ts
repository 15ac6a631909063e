import * as fs from 'node:fs';
import * as path from 'node:path';

import { ServiceLog } from '../process/logger';
import { isPortOpen, isProcessAlive } from '../process/ports';

export interface RunningDatabase {
  url: string;
  /** How the database was provided, for the start-up log. */
  source:
    'DATABASE_URL' | 'embedded PGlite' | 'embedded PGlite (shared with another Mirror process)' | 'local PostgreSQL';
  /**
   * Connections a client may open at once, when the server limits them. PGlite is one backend behind a socket server
   * that interleaves the messages of concurrent connections: two clients' extended-protocol queries (Parse, Bind,
   * Execute) mix and fail ("bind message supplies 24 parameters, but prepared statement requires 2"). One connection
   * whose queries queue in the client is what it can serve.
   */
  maxConnections?: number;
  stop(): Promise<void>;
}

interface LockContent {
  pid: number;
  port: number;
}

/**
 * Starts PGlite (PostgreSQL compiled to WASM) on a data folder and serves it over the PostgreSQL wire protocol, so
 * the app talks `pg` exactly as it would to a real server. A data folder can be opened by one process only; a lock
 * file records who serves it, and a second Mirror process connects to that server instead of opening the folder.
 */
export const startEmbeddedPostgres = async (dataDir: string, log: ServiceLog): Promise<RunningDatabase> => {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, '..', `${path.basename(dataDir)}.lock`);
  const existing = readLock(lockFile);
  if (existing && existing.pid !== process.pid && isProcessAlive(existing.pid) && (await isPortOpen(existing.port))) {
    log.log(`database: using the embedded PGlite served by process ${existing.pid} on port ${existing.port}`);
    return {
      url: urlFor(existing.port),
      source: 'embedded PGlite (shared with another Mirror process)',
      maxConnections: 1,
      stop: () => Promise.resolve(),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const started = performance.now();
  const db = await PGlite.create(dataDir);
  // PGlite runs one query at a time; the server multiplexes client connections onto it so a pg pool works.
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 16 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, port } satisfies LockContent));
  log.log(
    `database: started embedded PGlite on 127.0.0.1:${port} (${dataDir}) in ${Math.round(performance.now() - started)} ms`,
  );
  let stopped = false;
  return {
    url: urlFor(port),
    source: 'embedded PGlite',
    maxConnections: 1,
    stop: async () => {
      if (stopped) {
        return;
      }
      stopped = true;
      await server.stop();
      await db.close();
      if (readLock(lockFile)?.pid === process.pid) {
        fs.rmSync(lockFile, { force: true });
      }
    },
  };
};

const urlFor = (port: number): string => `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;

const readLock = (file: string): LockContent | undefined => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LockContent;
  } catch {
    return undefined;
  }
};
