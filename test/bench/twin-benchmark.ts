import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';
import { buildWorld } from '@libs/synthetic-data';
import { EpisodeState, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';

import { canPin, format, latency, runs, seconds, start, stop, throughput } from './load-harness';

/** Prism walks the whole spec before it listens; give it time, and say so when it does not make it. */
const prismStartSeconds = Number(process.env.MIRROR_BENCH_PRISM_START_SECONDS ?? 600);

export const runTwinBenchmarks = async (sharedSpecs: string): Promise<void> => {
  const distBench = __dirname;
  const digitalocean = path.join(sharedSpecs, 'digitalocean', 'DigitalOcean-public.v2.yaml');
  console.log(
    `\nTwin benchmark — ${runs} runs of ${seconds} s per figure, 10 connections; servers on core 0, load on core 1${canPin ? '' : ' (not pinned: taskset missing)'}`,
  );
  if (canPin) {
    spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  }

  const widths = [56, 26, 9, 9, 7];
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(['server', 'requests/s median (min–max)', 'p50 ms', 'p99 ms', 'non-2xx']));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  const measure = async (label: string, url: string, everyUrlNew = false, token?: unknown): Promise<number> => {
    const authorization = typeof token === 'string' ? `Bearer ${token}` : undefined;
    const rate = await throughput(url, everyUrlNew, undefined, authorization);
    const lat = await latency(url, everyUrlNew, authorization);
    const range = `${format(rate.median)} (${format(rate.min)}–${format(rate.max)})`;
    console.log(line([label, range, lat.p50.toFixed(2), lat.p99.toFixed(2), String(rate.non2xx)]));
    return rate.median;
  };

  const bare = await start([process.execPath, path.join(distBench, 'bare-server.js')], 10_000);
  const bareRate = await measure('bare node:http, fixed 100-byte JSON (ceiling)', `http://127.0.0.1:${bare.port}/`);
  await stop(bare);

  const twin = await start([process.execPath, path.join(distBench, 'twin-server.js'), digitalocean, '20'], 60_000);
  const dropletId = (twin.info.firstIds as Record<string, string>).droplets;
  const twinUrl = `http://127.0.0.1:${twin.port}/v2/droplets/${dropletId}`;
  const sameBody = path.join(os.tmpdir(), 'mirror-bench-droplet.json');
  const token = twin.info.token;
  fs.writeFileSync(
    sameBody,
    await (await fetch(twinUrl, { headers: { authorization: `Bearer ${String(token)}` } })).text(),
  );
  const twinById = await measure('Mirror twin, DigitalOcean GET /v2/droplets/{id}', twinUrl, false, token);
  const twinByIdCold = await measure('… the same, every request a new URL (never reused)', twinUrl, true, token);
  const twinList = await measure(
    'Mirror twin, DigitalOcean GET /v2/droplets?per_page=20',
    `http://127.0.0.1:${twin.port}/v2/droplets?per_page=20`,
    false,
    token,
  );
  await stop(twin);

  // The same bytes the twin answered, from the bare server: a ceiling that sends as much as the twin does.
  const bareSame = await start([process.execPath, path.join(distBench, 'bare-server.js'), '0', sameBody], 10_000);
  const bareSameRate = await measure(
    `bare node:http, the twin's ${fs.statSync(sameBody).size}-byte body`,
    `http://127.0.0.1:${bareSame.port}/`,
  );
  await stop(bareSame);

  const fiveOps = ['droplets_list', 'droplets_get', 'droplets_create', 'droplets_destroy', 'sizes_list'];
  const small = await start(
    [process.execPath, path.join(distBench, 'twin-server.js'), digitalocean, '20', JSON.stringify(fiveOps)],
    60_000,
  );
  const smallById = await measure(
    'Mirror twin, same spec cut to 5 operations, GET by id',
    `http://127.0.0.1:${small.port}/v2/droplets/${(small.info.firstIds as Record<string, string>).droplets}`,
    false,
    small.info.token,
  );
  await stop(small);

  let prismById: number | undefined;
  let prismNote = '';
  const prismPort = 14010;
  try {
    const prism = await start(
      [
        'npm',
        'exec',
        '--yes',
        '--package=@stoplight/prism-cli@5.14.2',
        '--',
        'prism',
        'mock',
        '-p',
        String(prismPort),
        '-h',
        '127.0.0.1',
        digitalocean,
      ],
      prismStartSeconds * 1000,
      prismPort,
    );
    prismById = await measure(
      'Stoplight Prism 5.14 (static mock), same request',
      `http://127.0.0.1:${prismPort}/v2/droplets/${dropletId}`,
    );
    await stop(prism);
  } catch (error) {
    prismNote = `Prism: ${(error as Error).message}`;
  }

  if (prismNote) {
    console.log(prismNote);
  }
  console.log(
    `\ntwin by id ÷ bare ceiling: ${(twinById / bareRate).toFixed(2)} (target ≥ 0.7); ÷ bare with the same body: ${(twinById / bareSameRate).toFixed(2)}; never-reused reads ÷ bare: ${(twinByIdCold / bareRate).toFixed(2)}; list ÷ bare: ${(twinList / bareRate).toFixed(2)}`,
  );
  if (prismById) {
    console.log(`twin ÷ Prism: ${(twinById / prismById).toFixed(1)}× (target ≥ 5)`);
  }
  console.log(`659-operation ÷ 5-operation throughput: ${(twinById / smallById).toFixed(2)} (target ≥ 0.9)`);

  await episodeBenchmarks(sharedSpecs);
};

/** Fork cost and the memory of idle episodes over one large world, in this process. */
const episodeBenchmarks = async (sharedSpecs: string): Promise<void> => {
  const { model, version } = await ingestStack({ kind: 'path', path: path.join(sharedSpecs, 'oai-petstore.yaml') });
  const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
  const source = await engine.createEpisode({
    tenantId: 'bench',
    stackVersion: version,
    seed: 1,
    sizes: { recordsPerResource: 10_000 },
  });
  const forks = 10_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < forks; i++) {
    await engine.createEpisode({
      tenantId: 'bench',
      stackVersion: version,
      seed: 1,
      sizes: { recordsPerResource: 10_000 },
    });
  }
  const perFork = Number(process.hrtime.bigint() - started) / 1e6 / forks;

  const world = buildWorld(model, version, 1, { recordsPerResource: 10_000, childrenPerParent: 3 });
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const episodes: EpisodeState[] = [];
  for (let i = 0; i < 10_000; i++) {
    episodes.push(new EpisodeState(world));
  }
  global.gc?.();
  const idleBytes = process.memoryUsage().heapUsed - before;
  console.log(
    `\nepisodes over a ${format(world.recordCount)}-record world (the world is built once: ${format(source.twin.world.recordCount)} records):`,
  );
  console.log(`  new episode on a cached world: ${(perFork * 1000).toFixed(1)} µs each (target < 1 ms)`);
  console.log(
    `  10,000 idle episodes: ${(idleBytes / 1024 / 1024).toFixed(1)} MB of heap (target < 1 GB)${global.gc ? '' : ' — run with --expose-gc for a steadier figure'}`,
  );
  // Keeps the episodes reachable until after the measurement above.
  void episodes.length;
};
