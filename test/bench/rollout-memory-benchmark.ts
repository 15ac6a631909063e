import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { v8HeapLimitMb } from '@libs/config';
import { silentLog, startLocalPostgresCluster } from '@libs/embedded-services';
import { createDataSource } from '@libs/persistence';

/**
 * Bounded memory over a whole rollout, as a client runs one: `mirror rollout` (the launcher in bin/, built code) with
 * the diligent agent on the single-supplier negotiation, every trial on a seed of its own (no world reused), 64 at
 * once, against a throw-away local PostgreSQL and the command's own Temporal dev server. The command's process is
 * sampled from /proc while it plays (resident memory, and the trials stored so far), so the figures are RSS at points
 * of the rollout, its peak, and its growth per 1,000 episodes once the twins' budget has filled. The stated budget is
 * the V8 heap limit the launcher derives from MIRROR_TWIN_MEMORY_MB plus what lives outside the heap (code, buffers,
 * the Temporal worker's native core). Scale it with MIRROR_BENCH_ROLLOUT_EPISODES (10,000 takes about two hours here).
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
    NODE_OPTIONS: `--max-old-space-size=${heapLimitMb}`,
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
  const samples: { at: number; trials: number; rssMb: number }[] = [];
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
        stdio: [
          'ignore',
          fs.openSync(path.join(output, 'rollout.json'), 'w'),
          fs.openSync(path.join(output, 'stderr'), 'w'),
        ],
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
      samples.push({ at: Date.now() - began, trials: Number(count), rssMb: memory.rssMb });
    }
    const code = await ended;
    if (code !== 0) {
      throw new Error(
        `mirror rollout ended with ${code}: ${fs.readFileSync(path.join(output, 'stderr'), 'utf8').slice(-2000)}`,
      );
    }
    const result = JSON.parse(fs.readFileSync(path.join(output, 'rollout.json'), 'utf8')) as {
      report: { overall: { episodes: number; graded: number; passed: number; infrastructureErrors: number } };
    };
    const ms = Date.now() - began;
    const { overall } = result.report;
    // Growth once the budget has filled: from the sample nearest a fifth of the rollout to the last.
    const settled = samples.find((s) => s.trials >= episodes / 5) ?? samples[0];
    const last = samples[samples.length - 1];
    const growth =
      last.trials > settled.trials ? ((last.rssMb - settled.rssMb) / (last.trials - settled.trials)) * 1000 : 0;
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
    console.log('| episodes stored | RSS, MB |');
    console.log('|---|---|');
    points.forEach((p) => console.log(`| ${p.trials} | ${Math.round(p.rssMb)} |`));
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
