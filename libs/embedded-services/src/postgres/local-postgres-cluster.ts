import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { ServiceLog } from '../process/logger';
import { freePort } from '../process/ports';
import { RunningDatabase } from './embedded-postgres';

/** Finds `initdb` of a PostgreSQL installation: PATH first, then Debian's versioned folders, newest first. */
export const findPostgresBinaries = (): string | undefined => {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) {
    return path.dirname(fs.realpathSync(onPath));
  }
  const debian = '/usr/lib/postgresql';
  if (!fs.existsSync(debian)) {
    return undefined;
  }
  const versions = fs
    .readdirSync(debian)
    .filter((v) => fs.existsSync(path.join(debian, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(debian, versions[0], 'bin') : undefined;
};

/**
 * A throw-away PostgreSQL cluster in a temporary folder on a free port: a real server for integration tests, without
 * touching any cluster the machine already runs. PostgreSQL refuses to run as root, so as root it runs as `postgres`.
 */
export const startLocalPostgresCluster = async (log: ServiceLog): Promise<RunningDatabase> => {
  const bin = findPostgresBinaries();
  if (!bin) {
    throw new Error(
      'PostgreSQL is not installed (no initdb found); install it (Debian: apt-get install postgresql) or set DATABASE_URL',
    );
  }
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-pg-'));
  const dataDir = path.join(dir, 'data');
  const run = (command: string, args: string[]): void => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  if (asRoot) {
    execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  }
  run(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const serverLog = path.join(dir, 'server.log');
  const start = (port: number): void =>
    run(path.join(bin, 'pg_ctl'), [
      '-D',
      dataDir,
      '-l',
      serverLog,
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      'start',
    ]);
  // A free port can be taken by another process before the server binds it (a busy machine running many test
  // processes): then another port, a few times, rather than a failed test run.
  let port = await freePort();
  for (let attempt = 1; ; attempt++) {
    try {
      start(port);
      break;
    } catch (error) {
      const said = fs.existsSync(serverLog) ? fs.readFileSync(serverLog, 'utf8') : '';
      if (attempt >= 5 || !/address already in use/i.test(said)) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      fs.rmSync(serverLog, { force: true });
      port = await freePort();
    }
  }
  log.log(`database: started a local PostgreSQL (${bin}) on 127.0.0.1:${port}`);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    source: 'local PostgreSQL',
    stop: async () => {
      try {
        run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      return Promise.resolve();
    },
  };
};
