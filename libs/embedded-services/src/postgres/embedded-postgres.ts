import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { ServiceLog } from '../process/logger';
import { isPortOpen } from '../process/ports';
import { DatabaseRelay } from './database-relay';
import { Claim, FolderOwnership } from './folder-ownership';

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

/** How often a borrower looks whether the folder's owner is still there (it also looks when a connection drops). */
const WATCH_INTERVAL_MS = 500;
/** An owner alive but not answering on its port this long has stopped serving (or its pid is another program's). */
const SILENT_OWNER_GRACE_MS = 30_000;

/**
 * Starts PGlite (PostgreSQL compiled to WASM) on a data folder and serves it over the PostgreSQL wire protocol, so
 * the app talks `pg` exactly as it would to a real server. A data folder can be opened by one process only: the first
 * process owns it (`FolderOwnership`) and serves it; another Mirror process borrows it through a local relay pointed
 * at the owner's server, and takes the folder over when the owner exits or dies, so it keeps working.
 */
export const startEmbeddedPostgres = async (dataDir: string, log: ServiceLog): Promise<RunningDatabase> => {
  fs.mkdirSync(dataDir, { recursive: true });
  const ownership = new FolderOwnership(path.join(dataDir, '..', `${path.basename(dataDir)}.owners`));
  const found = await findOwner(ownership, dataDir, log);
  if (found.kind === 'own') {
    return { url: urlFor(found.port), source: 'embedded PGlite', maxConnections: 1, stop: () => found.stop() };
  }
  log.log(`database: using the embedded PGlite served by process ${found.pid} on port ${found.port}`);
  const borrowed = new BorrowedFolder(ownership, dataDir, log);
  const relayPort = await borrowed.start(found.port);
  return {
    url: urlFor(relayPort),
    source: 'embedded PGlite (shared with another Mirror process)',
    maxConnections: 1,
    stop: () => borrowed.stop(),
  };
};

type Found = ({ kind: 'own' } & ServedFolder) | { kind: 'other'; port: number; pid: number };

interface ServedFolder {
  port: number;
  stop: () => Promise<void>;
}

/** Waits for a starting owner, or claims and serves the folder when it has none (or its owner is gone). */
const findOwner = async (
  ownership: FolderOwnership,
  dataDir: string,
  log: ServiceLog,
  stopped: () => boolean = () => false,
): Promise<Found> => {
  let silent: { generation: number; since: number } | undefined;
  for (;;) {
    if (stopped()) {
      throw new Error("stopped while looking for the database folder's owner");
    }
    const owner = ownership.current();
    if (owner.kind === 'serving') {
      if (await isPortOpen(owner.port)) {
        return { kind: 'other', port: owner.port, pid: owner.pid };
      }
      // Stopping (it releases the folder once closed), or dead with its pid reused: give it a while, then take over.
      if (silent?.generation !== owner.generation) {
        silent = { generation: owner.generation, since: Date.now() };
      }
      if (Date.now() - silent.since < SILENT_OWNER_GRACE_MS) {
        await sleep(100);
        continue;
      }
    } else if (owner.kind === 'starting') {
      await sleep(100);
      continue;
    }
    const claim = ownership.claim(owner);
    if (claim) {
      return { kind: 'own', ...(await serveFolder(dataDir, claim, log)) };
    }
  }
};

const serveFolder = async (dataDir: string, claim: Claim, log: ServiceLog): Promise<ServedFolder> => {
  const started = performance.now();
  let db: import('@electric-sql/pglite').PGlite | undefined;
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    db = await PGlite.create(dataDir);
    // PGlite runs one query at a time; the server multiplexes client connections onto it so a pg pool works.
    const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 16 });
    await server.start();
    const port = Number(server.getServerConn().split(':').pop());
    claim.serving(port);
    log.log(
      `database: started embedded PGlite on 127.0.0.1:${port} (${dataDir}) in ${Math.round(performance.now() - started)} ms`,
    );
    const opened = db;
    let stopping: Promise<void> | undefined;
    return {
      port,
      stop: () =>
        (stopping ??= (async () => {
          await server.stop();
          await opened.close();
          claim.release();
        })()),
    };
  } catch (error) {
    await db?.close().catch(() => undefined);
    claim.release();
    throw error;
  }
};

/**
 * A folder another process serves, reached through a relay whose address stays the same: when the owner goes away,
 * this process finds the next owner (itself if it wins the claim) and points the relay there.
 */
class BorrowedFolder {
  private readonly relay = new DatabaseRelay(() => this.recheck());
  private target?: number;
  private served?: ServedFolder;
  private checking?: Promise<void>;
  private watch?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly ownership: FolderOwnership,
    private readonly dataDir: string,
    private readonly log: ServiceLog,
  ) {}

  async start(port: number): Promise<number> {
    const relayPort = await this.relay.start();
    this.pointAt(port);
    this.watch = setInterval(() => {
      const owner = this.ownership.current();
      if (owner.kind !== 'serving' || owner.port !== this.target) {
        void this.recheck();
      }
    }, WATCH_INTERVAL_MS);
    this.watch.unref();
    return relayPort;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.watch);
    await this.checking;
    await this.relay.stop();
    await this.served?.stop();
  }

  private recheck(): Promise<void> {
    if (this.stopped || this.served) {
      return Promise.resolve();
    }
    this.relay.suspend();
    this.checking ??= (async () => {
      try {
        const found = await findOwner(this.ownership, this.dataDir, this.log, () => this.stopped);
        if (found.kind === 'own') {
          this.served = found;
          clearInterval(this.watch);
          this.log.log(`database: the owner of ${this.dataDir} is gone; this process serves it now`);
        } else if (found.port !== this.target) {
          this.log.log(`database: using the embedded PGlite served by process ${found.pid} on port ${found.port}`);
        }
        this.pointAt(found.port);
      } catch (error) {
        if (!this.stopped) {
          this.log.log(`database: could not take over ${this.dataDir}: ${(error as Error).message}`);
        }
        this.relay.fail(error as Error);
      } finally {
        this.checking = undefined;
      }
    })();
    return this.checking;
  }

  private pointAt(port: number): void {
    this.target = port;
    this.relay.pointAt(port);
  }
}

const urlFor = (port: number): string => `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
