import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The engineer's feedback loop: `mirror ingest <spec>` as a user runs it (a fresh CLI process, no database
 * configured), next to the ingest core measured in the same run: inside that CLI process (its "ingested in" line)
 * and alone in a fresh process (ingest-once). Runs are interleaved (CLI, core, CLI, core …) so a machine that slows
 * down mid-run slows both; each ratio is taken per adjacent pair and reported with its spread.
 */
const runs = Number(process.env.MIRROR_BENCH_RUNS ?? 5);
const root = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(root, 'bin', 'mirror.js');
const once = path.join(__dirname, 'ingest-once.js');
const timeBinary = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface CliSample {
  wallMs: number;
  coreMs: number;
  maxRssMb?: number;
}

const cliOnce = (spec: string): CliSample => {
  const command = [process.execPath, cli, 'ingest', spec];
  const [file, ...args] = timeBinary ? [timeBinary, '-f', 'mirror-bench-rss %M', ...command] : command;
  const started = performance.now();
  const result = spawnSync(file, args, {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
  const wallMs = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`mirror ingest ${spec} exited with ${result.status}: ${result.stderr}`);
  }
  const core = /ingested in (\d+) ms/.exec(result.stdout);
  const rss = /mirror-bench-rss (\d+)/.exec(result.stderr);
  return {
    wallMs,
    coreMs: core ? Number(core[1]) : NaN,
    ...(rss ? { maxRssMb: Number(rss[1]) / 1024 } : {}),
  };
};

const coreOnce = (spec: string): { ms: number; maxRssMb: number } =>
  JSON.parse(spawnSync(process.execPath, [once, 'mirror', spec], { encoding: 'utf8' }).stdout) as {
    ms: number;
    maxRssMb: number;
  };

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const spread = (values: number[], digits = 0): string =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

export const runCliIngestBenchmark = (sharedSpecs: string): void => {
  const specs = [
    path.join(sharedSpecs, 'oai-petstore.yaml'),
    path.join(root, 'test', 'fixtures', 'fidelity', 'robust', 'duplicate-required.yaml'),
  ].filter((spec) => fs.existsSync(spec));
  console.log(
    `\nmirror ingest of a small spec, no database configured — ${runs} interleaved pairs (CLI process, ingest core alone); median (min–max)\n`,
  );
  const header = [
    'spec',
    'CLI wall ms',
    'CLI peak MB',
    'core in CLI ms',
    'core alone ms',
    'core alone MB',
    'CLI wall / core alone',
  ];
  const rows: string[][] = [];
  for (const spec of specs) {
    const pairs = Array.from({ length: runs }, () => ({ cli: cliOnce(spec), core: coreOnce(spec) }));
    const rss = pairs.map((p) => p.cli.maxRssMb).filter((v): v is number => v !== undefined);
    rows.push([
      path.basename(spec),
      spread(pairs.map((p) => p.cli.wallMs)),
      rss.length ? spread(rss) : 'n/a',
      spread(pairs.map((p) => p.cli.coreMs)),
      spread(pairs.map((p) => p.core.ms)),
      spread(pairs.map((p) => p.core.maxRssMb)),
      spread(
        pairs.map((p) => p.cli.wallMs / p.core.ms),
        2,
      ),
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  rows.forEach((row) => console.log(line(row)));
};
