import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { exclusiveBuild } from '../process/exclusive-build';
import { ServiceLog } from '../process/logger';

/** The one CLI version that still builds with `go install` (later ones carry replace directives). */
export const temporalCliModule = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export type TemporalCliSource = 'path' | 'cache' | 'go-install' | 'sdk-download';

export interface LocatedTemporalCli {
  source: TemporalCliSource;
  /** Absent for `sdk-download`: the SDK fetches its own copy of the CLI (works for users who are online). */
  executable?: string;
}

export interface TemporalCliSearch {
  /** PATH to search, as in the environment. */
  searchPath: string | undefined;
  cacheDir: string;
  /** How to run Go; injectable so tests can exercise each branch without a 3-minute build. */
  goBinary?: string;
  log: ServiceLog;
}

const isTemporalCli = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    return false;
  }
  const probe = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return probe.status === 0 && /temporal version/i.test(probe.stdout);
};

const findOnPath = (searchPath: string | undefined, name: string): string | undefined =>
  (searchPath ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name))
    .find((file) => fs.existsSync(file));

export const cachedCliPath = (cacheDir: string): string => path.join(cacheDir, 'bin', 'temporal');

/**
 * Finds a Temporal CLI to run the dev server: on PATH, else in Mirror's cache, else builds it once into the cache
 * with Go, else leaves it to the SDK's own download. Logs which path was taken, because a first build takes minutes.
 */
export const locateTemporalCli = async (search: TemporalCliSearch): Promise<LocatedTemporalCli> => {
  const onPath = findOnPath(search.searchPath, 'temporal');
  if (onPath && isTemporalCli(onPath)) {
    search.log.log(`temporal: using the CLI on PATH (${onPath})`);
    return { source: 'path', executable: onPath };
  }
  const cached = cachedCliPath(search.cacheDir);
  if (isTemporalCli(cached)) {
    search.log.log(`temporal: using the cached CLI (${cached})`);
    return { source: 'cache', executable: cached };
  }
  const go =
    search.goBinary ??
    findOnPath(search.searchPath, 'go') ??
    (fs.existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (go) {
    const built = await exclusiveBuild(
      `${cached}.building`,
      async () => {
        if (isTemporalCli(cached)) {
          return true; // built by the process this one waited for
        }
        search.log.log(
          `temporal: building ${temporalCliModule} with Go into ${path.dirname(cached)} (once; takes a few minutes)`,
        );
        return goInstall(go, path.dirname(cached), search.log);
      },
      (owner) => search.log.log(`temporal: waiting for process ${owner}, which is building the CLI into ${cached}`),
    );
    if (built && isTemporalCli(cached)) {
      search.log.log(`temporal: built the CLI (${cached})`);
      return { source: 'go-install', executable: cached };
    }
    search.log.log('temporal: the Go build failed; falling back to the SDK download');
  }
  search.log.log('temporal: no CLI found; the Temporal SDK will download one');
  return { source: 'sdk-download' };
};

const goInstall = (go: string, binDir: string, log: ServiceLog): Promise<boolean> =>
  new Promise((resolve) => {
    fs.mkdirSync(binDir, { recursive: true });
    const child = spawn(go, ['install', temporalCliModule], {
      env: { ...process.env, GOBIN: binDir, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let tail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-2000);
    });
    child.on('error', (error) => {
      log.log(`temporal: could not run ${go}: ${error.message}`);
      resolve(false);
    });
    child.on('close', (code) => {
      if (code !== 0) {
        log.log(`temporal: go install exited with ${code}: ${tail.trim().split('\n').slice(-3).join(' / ')}`);
      }
      resolve(code === 0);
    });
  });
