import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { v8HeapLimitMb } from '@libs/config';
import { silentLog, startLocalPostgresCluster } from '@libs/embedded-services';
import { createDataSource } from '@libs/persistence';

import { inspectorUrlIn, liveHeapOf } from './live-heap-inspector';

/**
 * Bounded memory over a whole rollout, as a client runs one: `mirror rollout` (the launcher in bin/, built code) with
 * the diligent agent on the single-supplier negotiation, every trial on a seed of its own (no world reused), 64 at
 * once, against a throw-away local PostgreSQL and the command's own Temporal dev server. The command's process is
 * sampled from /proc while it plays (resident memory, and the trials stored so far), so the figures are RSS at points
 * of the rollout, its peak, and its growth per 1,000 episodes once the twins' budget has filled. The stated budget is
 * the V8 heap limit the launcher derives from MIRROR_TWIN_MEMORY_MB plus what lives outside the heap (code, buffers,
 * the Temporal worker's native core). Every minute the benchmark also collects the command's garbage through its
 * inspector and reads the live heap: RSS rises as the heap fills toward its limit between collections, so only the
 * live heap tells a leak (it grows with the trials played) from a full budget (it stays flat). Scale it with
 * MIRROR_BENCH_ROLLOUT_EPISODES (10,000 takes about two hours here).
 */
const episodes = Number(process.env.MIRROR_BENCH_ROLLOUT_EPISODES ?? 1000);
const twinBudgetMb = Number(process.env.MIRROR_BENCH_ROLLOUT_TWIN_MB ?? 128);
const concurrency = Number(process.env.MIRROR_BENCH_ROLLOUT_CONCURRENCY ?? 64);
/**
 * Outside V8's heap: code, buffers, the Temporal worker's native core and its workflow cache. Measured through the
 * inspector at forced collections during a rollout of 800 (RSS less V8's committed heap): 300-370 MB.
 */
const outsideHeapMb = 384;
const sampleMs = 5_000;
/** A forced full collection pauses the command for a fraction of a second: once a minute is enough to see a trend. */
const liveHeapEveryMs = 60_000;

const repositoryRoot = path.resolve(__dirname, '..', '..', '..');
const launcher = path.join(repositoryRoot, 'bin', 'mirror.js');
const bundle = path.join(repositoryRoot, 'examples', 'acme-manufacturing');

const memoryOf = (pid: number): { rssMb: number; peakMb: number } | undefined => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
};

/** The command's own Temporal dev server (never one a caller's shell names), the cluster, and the heap limit. */
const commandEnvironment = (databaseUrl: string, heapLimitMb: number): NodeJS.ProcessEnv => {
  const { TEMPORAL_ADDRESS: _temporal, TEMPORAL_NAMESPACE: _namespace, ...rest } = process.env;
  return {
    ...rest,
    DATABASE_URL: databaseUrl,
    MIRROR_TWIN_MEMORY_MB: String(twinBudgetMb),
    // The inspector on a port of the system's choosing, loopback only: the benchmark reads the live heap through it.
    NODE_OPTIONS: `--max-old-space-size=${heapLimitMb} --inspect=127.0.0.1:0`,
  };
};

export const runRolloutMemoryBenchmark = async (): Promise<void> => {
  const cluster = await startLocalPostgresCluster(silentLog);
  const dataSource = createDataSource(cluster.url);
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  // The launcher's own process is the command when the heap limit is chosen already (NODE_OPTIONS below).
  const heapLimitMb = v8HeapLimitMb({ MIRROR_TWIN_MEMORY_MB: String(twinBudgetMb) }) ?? 1024;
  const budgetMb = heapLimitMb + outsideHeapMb;
  const output = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-rollout-memory-'));
  const samples: { at: number; trials: number; rssMb: number; liveHeapMb?: number }[] = [];
  const stderrFile = path.join(output, 'stderr');
  let lastLiveHeapAt = Date.now();
  let inspector: string | undefined;
  let peakMb = 0;
  const began = Date.now();
  try {
    const child = spawn(
      process.execPath,
      [
        launcher,
        'rollout',
        bundle,
        '--agent',
        'diligent',
        '--tasks',
        'single-supplier-negotiation',
        '--seeds',
        String(episodes),
        '--concurrency',
        String(concurrency),
        '--json',
      ],
      {
        env: commandEnvironment(cluster.url, heapLimitMb),
        stdio: ['ignore', fs.openSync(path.join(output, 'rollout.json'), 'w'), fs.openSync(stderrFile, 'w')],
      },
    );
    const ended = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    let running = true;
    void ended.then(() => (running = false));
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, sampleMs));
      const memory = memoryOf(child.pid!);
      if (!memory) {
        continue;
      }
      peakMb = Math.max(peakMb, memory.peakMb);
      const [{ count }] = await dataSource.query<{ count: string }[]>('SELECT count(*) AS count FROM rollout_episodes');
      let liveHeapMb: number | undefined;
      // The command prints its inspector's address once, at its start.
      inspector ??= inspectorUrlIn(stderrFile);
      if (inspector && Date.now() - lastLiveHeapAt >= liveHeapEveryMs) {
        lastLiveHeapAt = Date.now();
        // The command may end between the two reads: a sample without a live heap then.
        liveHeapMb = await liveHeapOf(inspector).catch(() => undefined);
      }
      samples.push({ at: Date.now() - began, trials: Number(count), rssMb: memory.rssMb, liveHeapMb });
    }
    const code = await ended;
    if (code !== 0) {
      throw new Error(`mirror rollout ended with ${code}: ${fs.readFileSync(stderrFile, 'utf8').slice(-2000)}`);
    }
    // The stored report, not the command's stdout: Temporal's native core prints its own error lines to stdout too.
    const [stored] = await dataSource.query<
      { report: { overall: { episodes: number; graded: number; passed: number; infrastructureErrors: number } } }[]
    >('SELECT report FROM rollouts WHERE report IS NOT NULL');
    if (!stored) {
      throw new Error('mirror rollout ended without a stored report');
    }
    const ms = Date.now() - began;
    const { overall } = stored.report;
    // Growth once the budget has filled: from the sample nearest a fifth of the rollout to the last.
    const settled = samples.find((s) => s.trials >= episodes / 5) ?? samples[0];
    const last = samples[samples.length - 1];
    const growth =
      last.trials > settled.trials ? ((last.rssMb - settled.rssMb) / (last.trials - settled.trials)) * 1000 : 0;
    const live = samples.filter((s): s is typeof s & { liveHeapMb: number } => s.liveHeapMb !== undefined);
    const liveSettled = live.find((s) => s.trials >= episodes / 5) ?? live[0];
    const liveLast = live[live.length - 1];
    const liveGrowth =
      liveLast && liveLast.trials > liveSettled.trials
        ? ((liveLast.liveHeapMb - liveSettled.liveHeapMb) / (liveLast.trials - liveSettled.trials)) * 1000
        : undefined;
    console.log(
      `\n## Memory over a rollout: ${episodes.toLocaleString('en-US')} episodes (diligent, single-supplier negotiation, a seed each, ${concurrency} at once, PostgreSQL)\n`,
    );
    console.log(
      `played ${overall.episodes} (graded ${overall.graded}, passed ${overall.passed}, infrastructure errors ${overall.infrastructureErrors}) in ${Math.round(ms / 1000)} s: ${Math.round((overall.episodes / ms) * 3_600_000)} an hour (load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );
    const points = [0.1, 0.25, 0.5, 0.75, 1].map(
      (fraction) => samples.find((s) => s.trials >= episodes * fraction) ?? last,
    );
    // The live heap read nearest after each point (a minute apart at most).
    const liveAt = (trials: number) => live.find((s) => s.trials >= trials)?.liveHeapMb;
    const mb = (value: number | undefined) => (value === undefined ? '-' : String(Math.round(value)));
    console.log('| episodes stored | RSS, MB | live heap after a full collection, MB |');
    console.log('|---|---|---|');
    points.forEach((p) => console.log(`| ${p.trials} | ${Math.round(p.rssMb)} | ${mb(liveAt(p.trials))} |`));
    if (live.length > 0) {
      const used = live.map((s) => s.liveHeapMb);
      console.log(
        `\nlive heap over ${live.length} reads: ${Math.round(Math.min(...used))}-${Math.round(Math.max(...used))} MB; ` +
          `growth per 1,000 episodes after the first fifth: ${liveGrowth === undefined ? '-' : `${liveGrowth.toFixed(1)} MB`}`,
      );
    }
    console.log(
      `\nstated budget for the process: ${budgetMb} MB (V8 heap limit ${heapLimitMb} MB from MIRROR_TWIN_MEMORY_MB=${twinBudgetMb}, plus ${outsideHeapMb} MB outside the heap); ` +
        `peak RSS ${Math.round(peakMb)} MB: ${peakMb <= budgetMb ? 'held' : 'NOT held'}; RSS growth per 1,000 episodes after the first fifth: ${growth.toFixed(1)} MB`,
    );
    fs.writeFileSync(path.join(output, 'samples.json'), JSON.stringify(samples));
    console.log(`samples: ${path.join(output, 'samples.json')}`);
  } finally {
    await dataSource.destroy();
    await cluster.stop();
  }
};
