import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { benchDatabase } from './bench-database';

/**
 * Whole episodes per hour: the diligent agent on a single-supplier negotiation (`examples/acme-manufacturing`), each
 * episode created, played through the twins and Temporal, graded and stored, as `mirror run` does. Levels of
 * concurrency are interleaved per round (1, 8, 64, 1, 8, 64 …) in one host process, every episode on a fresh seed
 * (no world is reused from a cache); then the same with one and two Temporal workers (the host's own, plus a
 * `dist/apps/worker` process on the same task queue), also interleaved. Scale it with the MIRROR_BENCH_THROUGHPUT_*
 * variables below. The database is the embedded PGlite `mirror run` gives a user, or with MIRROR_BENCH_DATABASE=postgres
 * a throw-away local PostgreSQL cluster (the test database), which is what a client playing thousands an hour runs.
 * Each level also reports the CPU seconds one episode cost in every process: the host, the Temporal dev server and the
 * PostgreSQL server (with PGlite, the database is inside the host).
 */
const repositoryRoot = path.resolve(__dirname, '..', '..', '..');
const bundle = path.join(repositoryRoot, 'examples', 'acme-manufacturing');
const scenario = 'single-supplier-negotiation';

const numberFrom = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number, not ${process.env[name]}`);
  }
  return value;
};
const rounds = numberFrom('MIRROR_BENCH_THROUGHPUT_ROUNDS', 2);
/** Multiplies every batch (1 plays 4, 16 and 64 episodes at 1, 8 and 64 at once per round); never below one wave. */
const scale = numberFrom('MIRROR_BENCH_THROUGHPUT_SCALE', 1);
const levels = (process.env.MIRROR_BENCH_THROUGHPUT_LEVELS ?? '1,8,64').split(',').map(Number);
const workerConcurrency = numberFrom('MIRROR_BENCH_THROUGHPUT_WORKER_CONCURRENCY', 16);
const batchOf = (concurrency: number): number =>
  Math.max(concurrency, Math.ceil(Math.max(4, concurrency * (concurrency >= 64 ? 1 : 2)) * scale));
const target = 6000;

interface Played {
  elapsedMs: number;
  outcomes: { seed: number; status: string; reward: number | null }[];
  rssMb: number;
  heapMb: number;
  error?: string;
}

interface Ready {
  startupMs: number;
  services: string[];
  temporal: { address: string; namespace: string };
  taskQueue: string;
  rssMb: number;
  heapMb: number;
}

const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);
const median = (values: number[]): number => {
  const s = sorted(values);
  const middle = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[middle] : (s[middle - 1] + s[middle]) / 2;
};
const spread = (values: number[], digits = 0): string =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
const perHour = (episodes: number, ms: number): number => (episodes / ms) * 3_600_000;
const uptime = (): string =>
  execFileSync('uptime', { encoding: 'utf8' })
    .trim()
    .replace(/^.*load average:\s*/, '');

/** Processes under `pid` (the host's Temporal dev server), from /proc. */
const descendants = (pid: number): number[] => {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const visit = (p: number): void => (children.get(p) ?? []).forEach((c) => (found.push(c), visit(c)));
  visit(pid);
  return found;
};

/** CPU seconds a process has used (user + system), and its peak resident memory in MB, from /proc. */
const processUse = (pid: number): { cpuSeconds: number; peakMb: number } => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return { cpuSeconds: ticks / 100, peakMb: Number(hwm ?? 0) / 1024 };
  } catch {
    return { cpuSeconds: 0, peakMb: 0 };
  }
};

/** The PostgreSQL server's processes (postmaster and backends): those whose command line names its port. */
const postgresPids = (url: string | undefined): number[] => {
  if (url === undefined) {
    return [];
  }
  const port = new URL(url).port;
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
        return /\((postgres|postmaster)\)/.test(stat.slice(0, stat.lastIndexOf(')') + 1));
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter((pid) => {
      // Backends keep the postmaster's command line only in their parent; a backend's parent is the postmaster.
      const postmaster = (p: number): boolean => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ').includes(`-p ${port} `);
        } catch {
          return false;
        }
      };
      if (postmaster(pid)) {
        return true;
      }
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return postmaster(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        return false;
      }
    });
};

const startHost = (
  dataDir: string,
  operatorKey: string,
  databaseUrl: string | undefined,
): Promise<{ child: ChildProcess; ready: Ready }> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', path.join(__dirname, 'throughput-host.js'), bundle, scenario],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: {
          ...process.env,
          MIRROR_DATA_DIR: dataDir,
          MIRROR_OPERATOR_KEY: operatorKey,
          MIRROR_BENCH_HOST_CONCURRENCY: String(Math.max(...levels, workerConcurrency)),
          ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        },
      },
    );
    const timer = setTimeout(() => reject(new Error('the episode host did not start within 600 s')), 600_000);
    child.once('exit', (code) => reject(new Error(`the episode host exited (${code}) before it was ready`)));
    child.once('message', (message: { ready?: Ready }) => {
      clearTimeout(timer);
      if (message.ready) {
        resolve({ child, ready: message.ready });
      }
    });
  });

/** A second Temporal worker: the built worker app polling the host's queue, its steps sent to the host's gateway. */
const startWorker = (ready: Ready, operatorKey: string): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repositoryRoot, 'dist', 'apps', 'worker', 'src', 'main.js')], {
      // Its own log (state changes at every start and stop) would bury the figures; its last words show on a failure.
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: ready.temporal.address,
        TEMPORAL_NAMESPACE: ready.temporal.namespace,
        MIRROR_TASK_QUEUE: ready.taskQueue,
        MIRROR_OPERATOR_KEY: operatorKey,
      },
    });
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said = (said + chunk.toString()).slice(-2000);
    });
    const timer = setTimeout(() => reject(new Error('the second worker did not start within 300 s')), 300_000);
    child.once('exit', (code) => reject(new Error(`the second worker exited (${code}) before it polled: ${said}`)));
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('polling')) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve(child);
      }
    });
  });

const stop = (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) {
      resolve();
      return;
    }
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.removeAllListeners('exit');
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill(signal);
  });

export const runThroughputBenchmarks = async (): Promise<void> => {
  const loadBefore = uptime();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-bench-throughput-'));
  const operatorKey = randomBytes(24).toString('hex');
  const cluster = await benchDatabase();
  const { child: host, ready } = await startHost(dataDir, operatorKey, cluster?.url).catch(async (error: unknown) => {
    await cluster?.stop();
    throw error;
  });
  let nextSeed = 1;
  let batchId = 0;
  let played = 0;
  const problems: string[] = [];
  const batch = (concurrency: number, episodes: number): Promise<Played> =>
    new Promise((resolve, reject) => {
      const id = batchId++;
      const seeds = Array.from({ length: episodes }, () => nextSeed++);
      const listener = (message: Played & { id?: number }) => {
        if (message.id !== id) {
          return;
        }
        host.off('message', listener);
        if (message.error) {
          reject(new Error(message.error));
          return;
        }
        played += message.outcomes.length;
        for (const o of message.outcomes.filter((o) => o.status !== 'succeeded')) {
          problems.push(`seed ${o.seed} at ${concurrency} at once: ${o.status}`);
        }
        resolve(message);
      };
      host.on('message', listener);
      host.send({ id, concurrency, seeds });
    });
  const cpuOf = (pids: number[]): number => pids.reduce((sum, pid) => sum + processUse(pid).cpuSeconds, 0);

  try {
    const temporalPids = descendants(host.pid!);
    console.log(
      `\nThroughput benchmark — ${scenario} of examples/acme-manufacturing, diligent agent, whole episodes (created, played, graded, stored), fresh seeds; ${os.cpus().length} cores, Node ${process.version}, not pinned (the host, its Temporal dev server and a second worker share the machine); load average before ${loadBefore}`,
    );
    console.log(
      `${ready.services.filter((s) => /database|temporal/i.test(s)).join('; ')}; host start-up ${(ready.startupMs / 1000).toFixed(1)} s (ingest, database, Temporal, worker bundle), not in the rates below`,
    );
    // One warm-up episode per level: the first run of each code path compiles it.
    await batch(1, 1);
    await batch(Math.min(8, Math.max(...levels)), Math.min(8, Math.max(...levels)));

    const rates = new Map<number, number[]>(levels.map((level) => [level, []]));
    const ratios = new Map<number, number[]>(levels.map((level) => [level, []]));
    /** CPU seconds per episode of each batch, by level: the host, the Temporal dev server, the PostgreSQL server. */
    const costs = new Map<number, { host: number; temporal: number; database: number }[]>(
      levels.map((level) => [level, []]),
    );
    /** CPU seconds of the PostgreSQL server's processes by pid: the pool opens backends as concurrency grows. */
    const databaseUse = (): Map<number, number> =>
      new Map(postgresPids(cluster?.url).map((pid) => [pid, processUse(pid).cpuSeconds]));
    const databaseSince = (before: Map<number, number>): number =>
      [...databaseUse()].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0);
    const memoryStart = await batch(1, 1);
    const playedAtStart = played;
    for (let round = 0; round < rounds; round++) {
      const thisRound = new Map<number, number>();
      for (const level of levels) {
        const before = { host: cpuOf([host.pid!]), temporal: cpuOf(temporalPids), database: databaseUse() };
        const result = await batch(level, batchOf(level));
        const episodes = result.outcomes.length;
        costs.get(level)!.push({
          host: (cpuOf([host.pid!]) - before.host) / episodes,
          temporal: (cpuOf(temporalPids) - before.temporal) / episodes,
          database: databaseSince(before.database) / episodes,
        });
        thisRound.set(level, perHour(episodes, result.elapsedMs));
        rates.get(level)!.push(thisRound.get(level)!);
      }
      for (const level of levels) {
        ratios.get(level)!.push(thisRound.get(level)! / thisRound.get(levels[0])!);
      }
    }
    const memoryEnd = await batch(1, 1);
    const hostUse = processUse(host.pid!);
    const temporalPeak = Math.max(0, ...temporalPids.map((pid) => processUse(pid).peakMb));

    console.log(`\n${rounds} rounds, levels interleaved in each; episodes per hour: median (min–max) over rounds\n`);
    const database = cluster ? 'PostgreSQL server' : 'database (PGlite, in the host)';
    console.log(
      `| at once | episodes per round | episodes/hour | ratio to ${levels[0]} at once (same round) | CPU s per episode: host | Temporal server | ${cluster ? 'PostgreSQL server' : 'database'} | all |`,
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const level of levels) {
      const of = (key: 'host' | 'temporal' | 'database') => costs.get(level)!.map((c) => c[key]);
      const all = costs.get(level)!.map((c) => c.host + c.temporal + c.database);
      console.log(
        `| ${level} | ${batchOf(level)} | ${spread(rates.get(level)!)} | ${spread(ratios.get(level)!, 2)} | ${spread(of('host'), 2)} | ${spread(of('temporal'), 2)} | ${cluster ? spread(of('database'), 2) : 'in host'} | ${spread(all, 2)} |`,
      );
    }
    console.log(
      `database: ${database}; CPU per episode is user + system time of each process over the batch divided by its episodes; 6,000 an hour leaves 1.2 s in all on 2 idle cores, and at most 0.6 s to the host, whose JavaScript runs on one of them`,
    );
    const top = Math.max(...levels);
    const topRate = median(rates.get(top)!);
    console.log(
      `\nat ${top} at once: ${Math.round(topRate).toLocaleString('en')} episodes/hour — target ${target.toLocaleString('en')}: ${topRate >= target ? 'met' : 'NOT met'}`,
    );
    console.log(
      `memory: host peak RSS ${Math.round(hostUse.peakMb)} MB over ${played} episodes (Temporal dev server peak ${Math.round(temporalPeak)} MB); RSS after a full GC went ${Math.round(memoryStart.rssMb)} → ${Math.round(memoryEnd.rssMb)} MB (heap ${Math.round(memoryStart.heapMb)} → ${Math.round(memoryEnd.heapMb)} MB) over ${played - playedAtStart} episodes, while the twins' budget (MIRROR_TWIN_MEMORY_MB, ${process.env.MIRROR_TWIN_MEMORY_MB ?? 512} MB) fills: too few episodes to say what 1,000 cost (the memory benchmark, \`--only=memory\`, does)`,
    );

    // One worker against two, interleaved: the second is started before and stopped after each of its batches.
    const single: number[] = [];
    const double: number[] = [];
    const pairRatios: number[] = [];
    const use: { host: number; temporal: number; second: number; seconds: number }[] = [];
    const episodes = batchOf(workerConcurrency);
    for (let round = 0; round < rounds; round++) {
      const one = await batch(workerConcurrency, episodes);
      single.push(perHour(one.outcomes.length, one.elapsedMs));
      const second = await startWorker(ready, operatorKey);
      try {
        const before = { host: cpuOf([host.pid!]), temporal: cpuOf(temporalPids), second: cpuOf([second.pid!]) };
        const two = await batch(workerConcurrency, episodes);
        use.push({
          host: cpuOf([host.pid!]) - before.host,
          temporal: cpuOf(temporalPids) - before.temporal,
          second: cpuOf([second.pid!]) - before.second,
          seconds: two.elapsedMs / 1000,
        });
        double.push(perHour(two.outcomes.length, two.elapsedMs));
      } finally {
        await stop(second);
      }
      pairRatios.push(double[double.length - 1] / single[single.length - 1]);
    }
    const share = (key: 'host' | 'temporal' | 'second') =>
      spread(
        use.map((u) => (100 * u[key]) / u.seconds),
        0,
      );
    console.log(`\n${workerConcurrency} at once, ${episodes} episodes per batch, one and two workers interleaved\n`);
    console.log('| Temporal workers | episodes/hour | ratio 2/1 (adjacent pair) |');
    console.log('|---|---|---|');
    console.log(`| 1 (the host's own) | ${spread(single)} | |`);
    console.log(`| 2 (+ dist/apps/worker on the same queue) | ${spread(double)} | ${spread(pairRatios, 2)} |`);
    console.log(
      `CPU while two workers played, % of one core: host (agents, twins, gateway, database, grading, worker 1) ${share('host')}, second worker ${share('second')}, Temporal dev server ${share('temporal')}; machine load average after ${uptime()} on ${os.cpus().length} cores`,
    );
    console.log(
      `what limits it here: the second worker takes only the parties' steps and workflow tasks; the agents, the twins behind the gateway, ${cluster ? "the database client (PostgreSQL's own work is in its processes)" : 'the embedded database'} and grading stay in the host's one thread, and all three processes share these cores with the Temporal dev server (one history shard, SQLite)${cluster ? ' and PostgreSQL' : ''}. A second machine would show the scale-out; this one shows whether the work divides.`,
    );
    if (problems.length > 0) {
      console.log(`\n${problems.length} episodes did not succeed:\n${problems.slice(0, 20).join('\n')}`);
    } else {
      console.log(`\nall ${played} episodes succeeded`);
    }
  } finally {
    await stop(host);
    await cluster?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
};
