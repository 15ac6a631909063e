import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import { silentLog, startLocalPostgresCluster } from '@libs/embedded-services';
import { createDataSource } from '@libs/persistence';

/**
 * Bounded memory: a long run of episodes (each on its own world, a dozen writes, then idle) in a fresh process with
 * the twin engine's budget and V8's heap limit set from it, against a throw-away local PostgreSQL; then a shorter run
 * with neither, for comparison (without a budget every world stays, so it is kept short on a shared machine). Prints
 * peak RSS against the stated budget, RSS after a full GC as the episodes accumulate, and its growth per 1,000
 * episodes once the budget is reached.
 */
const episodes = Number(process.env.MIRROR_BENCH_MEMORY_EPISODES ?? 1000);
const unboundedEpisodes = Math.min(episodes, Number(process.env.MIRROR_BENCH_MEMORY_UNBOUNDED_EPISODES ?? 200));
const runs = Number(process.env.MIRROR_BENCH_MEMORY_RUNS ?? 1);
const budgetMb = Number(process.env.MIRROR_BENCH_MEMORY_BUDGET_MB ?? 128);
/**
 * V8's old-space limit for the bounded run: the twins' budget plus what the process holds besides them (the stack
 * model, compiled validators, the database client, V8's own code); the heap is collected harder as it nears it.
 */
const heapLimitMb = Number(process.env.MIRROR_BENCH_MEMORY_HEAP_MB ?? budgetMb + 256);
/** The process's stated budget: the heap limit plus what lives outside V8's heap (code, buffers, the runtime). */
const processBudgetMb = heapLimitMb + 160;

interface RunResult {
  budgetMb: number;
  episodes: number;
  baselineMb: number;
  peakMb: number;
  samples: [number, number, number][];
  held: { episodes: number; worlds: number; bytes: number };
  evictions: { episodes: number; worlds: number };
  rebuiltFirst: boolean;
  ms: number;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const spread = (values: number[]): string => `${median(values)} (${Math.min(...values)}–${Math.max(...values)})`;

const measure = (databaseUrl: string, budget: number, count: number, heapMb?: number): RunResult => {
  const child = spawnSync(
    process.execPath,
    [
      // The same loader as this process (tsx when run from source), and the child next to this file.
      ...process.execArgv,
      '--expose-gc',
      ...(heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`]),
      path.join(__dirname, `memory-run${path.extname(__filename)}`),
      databaseUrl,
      String(budget),
      String(count),
    ],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  if (child.status !== 0) {
    throw new Error(`the memory run (budget ${budget} MB) failed: ${child.stderr}`);
  }
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as RunResult;
};

/** RSS growth per 1,000 episodes from the second sample on (the first fills the budget), after a full GC. */
const growthPerThousand = (result: RunResult): number => {
  const [first, last] = [result.samples[1] ?? result.samples[0], result.samples[result.samples.length - 1]];
  return last[0] === first[0] ? 0 : ((last[1] - first[1]) / (last[0] - first[0])) * 1000;
};

export const runMemoryBenchmark = async (): Promise<void> => {
  const cluster = await startLocalPostgresCluster(silentLog);
  try {
    const migrating = createDataSource(cluster.url);
    await migrating.initialize();
    await migrating.runMigrations({ transaction: 'each' });
    await migrating.destroy();
    const bounded: RunResult[] = [];
    const unbounded: RunResult[] = [];
    for (let run = 0; run < runs; run++) {
      bounded.push(measure(cluster.url, budgetMb, episodes, heapLimitMb));
      unbounded.push(measure(cluster.url, 0, unboundedEpisodes));
    }
    console.log(
      `\n## Memory: episodes one after another, each on its own world (acme-manufacturing), ${runs} run(s) each\n`,
    );
    console.log(
      '| twin engine budget | V8 heap limit | episodes | RSS before, MB | peak RSS, MB | RSS growth per 1,000 episodes, MB | held at end | evicted (episodes / worlds) | s |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const [label, heap, results] of [
      [`${budgetMb} MB`, `${heapLimitMb} MB`, bounded],
      ['none', 'default', unbounded],
    ] as const) {
      const last = results[results.length - 1];
      console.log(
        `| ${label} | ${heap} | ${last.episodes} | ${spread(results.map((r) => r.baselineMb))} | ${spread(results.map((r) => r.peakMb))} | ` +
          `${spread(results.map((r) => Math.round(growthPerThousand(r))))} | ${last.held.episodes} episodes, ${last.held.worlds} worlds, ~${last.held.bytes} MB | ` +
          `${last.evictions.episodes} / ${last.evictions.worlds} | ${spread(results.map((r) => Math.round(r.ms / 1000)))} |`,
      );
    }
    const peak = Math.max(...bounded.map((r) => r.peakMb));
    console.log(
      `\nstated budget for the process: ${processBudgetMb} MB (V8 heap limit ${heapLimitMb} MB, set from the twins' ${budgetMb} MB, ` +
        `plus 160 MB outside the heap); peak RSS over ${episodes} episodes ${peak} MB: ${peak <= processBudgetMb ? 'held' : 'NOT held'}`,
    );
    const row = (results: RunResult[], column: 1 | 2) =>
      results[results.length - 1].samples.map((sample) => String(sample[column])).join(' ');
    const at = (results: RunResult[]) =>
      results[results.length - 1].samples.map((sample) => String(sample[0])).join(' ');
    console.log('after a full GC, RSS / live heap (MB):');
    console.log(`  with the budget, at episodes ${at(bounded)}: ${row(bounded, 1)} / ${row(bounded, 2)}`);
    console.log(`  without, at episodes ${at(unbounded)}: ${row(unbounded, 1)} / ${row(unbounded, 2)}`);
    const lost = [...bounded, ...unbounded].filter((r) => !r.rebuiltFirst).length;
    console.log(
      `the first episode, rebuilt after eviction, has all its events: ${lost === 0 ? 'yes' : `no (${lost} runs)`}`,
    );
  } finally {
    await cluster.stop();
  }
};
