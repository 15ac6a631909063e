import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { runCliIngestBenchmark } from './cli-ingest-benchmark';
import { runEpisodeBenchmarks } from './episode-benchmark';
import { runGradingBenchmarks } from './grading-benchmark';
import { runMemoryBenchmark } from './memory-benchmark';
import { runRolloutMemoryBenchmark } from './rollout-memory-benchmark';
import { runPackBenchmarks } from './pack-benchmark';
import { runThroughputBenchmarks } from './throughput-benchmark';
import { runTwinBenchmarks } from './twin-benchmark';

/**
 * `npm run bench`: ingest time and peak memory for every shared spec, smallest to largest, each next to baselines
 * measured in the same run on the same machine (parse-only floor, Redocly's bundler), reported as ratios.
 * Every figure is the median of several fresh processes pinned to one core when `taskset` exists.
 */
const runs = Number(process.env.MIRROR_BENCH_RUNS ?? 5);
const sharedSpecs =
  process.env.MIRROR_SHARED_SPECS ?? path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'specs');
const once = path.join(__dirname, 'ingest-once.js');
const pin =
  spawnSync('sh', ['-c', 'command -v taskset']).status === 0 ? ['taskset', '-c', String(os.cpus().length - 1)] : [];

interface Sample {
  ms: number;
  maxRssMb: number;
  files?: number;
  references?: number;
  operations?: number;
}

const sample = (mode: string, target: string, filesList = ''): Sample[] =>
  Array.from({ length: runs }, () => {
    const [command, ...args] = [...pin, process.execPath, once, mode, target, filesList];
    return JSON.parse(execFileSync(command, args, { encoding: 'utf8' })) as Sample;
  });

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const spread = (samples: Sample[], key: 'ms' | 'maxRssMb'): string => {
  const values = samples.map((s) => s[key]);
  return `${Math.round(median(values))} (${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))})`;
};

const main = (): void => {
  const manifest = JSON.parse(fs.readFileSync(path.join(sharedSpecs, 'manifest.json'), 'utf8')) as {
    specs: { name: string; file: string; bytes: number }[];
  };
  // The largest last: DigitalOcean (2,907 files) is the figure the target is about.
  const specs = manifest.specs
    .map((spec) => ({ ...spec, target: path.join(sharedSpecs, spec.file) }))
    .sort((a, b) => (a.name === 'digitalocean' ? 1 : b.name === 'digitalocean' ? -1 : a.bytes - b.bytes));

  console.log(
    `Ingestion benchmark — ${os.cpus().length} cores, Node ${process.version}, ${runs} fresh processes per figure${pin.length ? ', pinned with taskset' : ''}`,
  );
  console.log(
    'times in ms and peak RSS in MB: median (min–max); ratios are medians against baselines measured in this run\n',
  );
  const header = [
    'spec',
    'files',
    'refs',
    'ops',
    'parse-only ms',
    'Mirror ms',
    '×parse',
    'Redocly bundle ms',
    'Mirror/Redocly',
    'Mirror peak MB',
  ];
  const rows: string[][] = [];
  let largest: { name: string; ms: number } | undefined;
  for (const spec of specs) {
    const mirror = sample('mirror', spec.target);
    const spanned = listSpannedFiles(spec.target);
    const list = path.join(os.tmpdir(), `mirror-bench-${spec.name}.json`);
    fs.writeFileSync(list, JSON.stringify(spanned));
    const parse = sample('parse', spec.target, list);
    const redocly = sample('redocly', spec.target);
    const mirrorMs = median(mirror.map((s) => s.ms));
    rows.push([
      spec.name,
      String(mirror[0].files),
      String(mirror[0].references),
      String(mirror[0].operations),
      spread(parse, 'ms'),
      spread(mirror, 'ms'),
      (mirrorMs / median(parse.map((s) => s.ms))).toFixed(2),
      spread(redocly, 'ms'),
      (mirrorMs / median(redocly.map((s) => s.ms))).toFixed(2),
      spread(mirror, 'maxRssMb'),
    ]);
    largest = { name: spec.name, ms: mirrorMs };
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  rows.forEach((row) => console.log(line(row)));
  if (largest) {
    console.log(
      `\nlargest (${largest.name}): ${Math.round(largest.ms)} ms — target under 3,000 ms: ${largest.ms < 3000 ? 'met' : 'NOT met'}`,
    );
  }
};

/** The files a spec spans: the entry and every file its references reach (what ingestion reports reading). */
const listSpannedFiles = (target: string): string[] => {
  const stat = fs.statSync(target);
  if (!stat.isFile()) {
    return [];
  }
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file) || !fs.existsSync(file)) {
      return;
    }
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\$ref["']?\s*:\s*["']?([^"'#\s}]+)/g)) {
      if (!/^[a-z]+:/i.test(match[1])) {
        visit(path.resolve(path.dirname(file), match[1]));
      }
    }
  };
  visit(path.resolve(target));
  return [...seen];
};

const only = process.argv
  .slice(2)
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length);

void (async () => {
  if (!only || only === 'ingest') {
    main();
    runCliIngestBenchmark(sharedSpecs);
  }
  if (only === 'ingest-cli') {
    runCliIngestBenchmark(sharedSpecs);
  }
  if (!only || only === 'twin') {
    await runTwinBenchmarks(sharedSpecs);
  }
  if (!only || only === 'packs') {
    await runPackBenchmarks();
  }
  if (!only || only === 'grading') {
    runGradingBenchmarks();
  }
  if (!only || only === 'episodes') {
    await runEpisodeBenchmarks();
  }
  if (!only || only === 'throughput') {
    await runThroughputBenchmarks();
  }
  if (!only || only === 'memory') {
    await runMemoryBenchmark();
  }
  if (!only || only === 'rollout-memory') {
    await runRolloutMemoryBenchmark();
  }
})();
