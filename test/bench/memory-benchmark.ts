import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import { silentLog, startLocalPostgresCluster } from '@libs/embedded-services';
import { createDataSource } from '@libs/persistence';

/**
 * Bounded memory: the same long run of episodes (each on its own world, a dozen writes, then idle) in fresh processes
 * with the twin engine's budget and without, against a throw-away local PostgreSQL. Prints peak RSS and RSS as the
 * episodes accumulate, median and range over the runs, and the ratio without/with.
 */
const episodes = Number(process.env.MIRROR_BENCH_MEMORY_EPISODES ?? 400);
const runs = Number(process.env.MIRROR_BENCH_MEMORY_RUNS ?? 2);
const budgetMb = Number(process.env.MIRROR_BENCH_MEMORY_BUDGET_MB ?? 128);

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

const measure = (databaseUrl: string, budget: number): RunResult => {
  const child = spawnSync(
    process.execPath,
    [
      // The same loader as this process (tsx when run from source), and the child next to this file.
      ...process.execArgv,
      '--expose-gc',
      path.join(__dirname, `memory-run${path.extname(__filename)}`),
      databaseUrl,
      String(budget),
      String(episodes),
    ],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  if (child.status !== 0) {
    throw new Error(`the memory run (budget ${budget} MB) failed: ${child.stderr}`);
  }
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as RunResult;
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
      bounded.push(measure(cluster.url, budgetMb));
      unbounded.push(measure(cluster.url, 0));
    }
    console.log(
      `\n## Memory: ${episodes} episodes one after another, each on its own world (acme-manufacturing), ${runs} runs each\n`,
    );
    console.log(
      '| twin engine budget | RSS before, MB | peak RSS, MB | peak − before, MB | held at end | evicted (episodes / worlds) | s |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const [label, results] of [
      [`${budgetMb} MB`, bounded],
      ['none', unbounded],
    ] as const) {
      const last = results[results.length - 1];
      console.log(
        `| ${label} | ${spread(results.map((r) => r.baselineMb))} | ${spread(results.map((r) => r.peakMb))} | ` +
          `${spread(results.map((r) => r.peakMb - r.baselineMb))} | ${last.held.episodes} episodes, ${last.held.worlds} worlds, ~${last.held.bytes} MB | ` +
          `${last.evictions.episodes} / ${last.evictions.worlds} | ${spread(results.map((r) => Math.round(r.ms / 1000)))} |`,
      );
    }
    const ratio =
      median(unbounded.map((r) => r.peakMb - r.baselineMb)) / median(bounded.map((r) => r.peakMb - r.baselineMb));
    console.log(`\ngrowth over the baseline, without the budget / with it: ${ratio.toFixed(1)}×`);
    const row = (results: RunResult[], column: 1 | 2) =>
      results[results.length - 1].samples.map((sample) => String(sample[column])).join(' ');
    console.log(`after a full GC every 25 episodes, RSS / live heap (MB):`);
    console.log(`  with the budget: ${row(bounded, 1)} / ${row(bounded, 2)}`);
    console.log(`  without:         ${row(unbounded, 1)} / ${row(unbounded, 2)}`);
    const lost = [...bounded, ...unbounded].filter((r) => !r.rebuiltFirst).length;
    console.log(
      `the first episode, rebuilt after eviction, has all its events: ${lost === 0 ? 'yes' : `no (${lost} runs)`}`,
    );
  } finally {
    await cluster.stop();
  }
};
