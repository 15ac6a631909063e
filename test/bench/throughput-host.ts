import * as path from 'node:path';

import { ServiceLog } from '@libs/embedded-services';
import { startEpisodeHost } from '@libs/episode-host';
import { referenceAgents } from '@libs/reference-agents';
import { ingestStack } from '@libs/stack-ingestion';

/**
 * The throughput benchmark's episode host: one bundle hosted as `mirror run --concurrency 64` hosts it (embedded
 * PGlite and Temporal unless DATABASE_URL / TEMPORAL_ADDRESS), in its own process so its peak memory is its own. Over
 * IPC it plays batches of whole episodes (the diligent agent on one scenario, fresh seeds, graded and stored, as `run`
 * does) at a concurrency, and answers how long the batch took and how the episodes ended.
 */
interface Batch {
  id: number;
  concurrency: number;
  seeds: number[];
}

/** Retained memory after a full collection (the benchmark runs this process with --expose-gc). */
const settledMemoryMb = (): { rssMb: number; heapMb: number } => {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rssMb: rss / 2 ** 20, heapMb: heapUsed / 2 ** 20 };
};

const main = async (): Promise<void> => {
  const [folder, scenarioId] = [path.resolve(process.argv[2]), process.argv[3]];
  const began = performance.now();
  const { model, version } = await ingestStack({ kind: 'path', path: folder });
  const scenario = model.scenarios.find((s) => s.scenario.id === scenarioId);
  if (!scenario) {
    throw new Error(`the bundle ${folder} has no scenario ${scenarioId}`);
  }
  const services: string[] = [];
  const log: ServiceLog = { log: (message) => services.push(message) };
  const concurrency = Number(process.env.MIRROR_BENCH_HOST_CONCURRENCY ?? 64);
  const host = await startEpisodeHost([{ id: 'bundle', path: folder, model, version }], log, {
    taskQueue: `mirror-bench-throughput-${process.pid}`,
    concurrency,
  });
  const environment = host.environments.get('bundle')!;
  const agent = referenceAgents.get('diligent')!;

  const play = async ({ concurrency: atOnce, seeds }: Batch) => {
    const outcomes: { seed: number; status: string; reward: number | null }[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(atOnce, seeds.length) }, async () => {
        while (next < seeds.length) {
          const seed = seeds[next++];
          const played = await host.play(environment, scenario, seed, agent);
          outcomes.push({ seed, status: played.status, reward: played.reward });
        }
      }),
    );
    return { elapsedMs: performance.now() - started, outcomes };
  };

  process.on('message', (batch: Batch) => {
    void play(batch).then(
      (result) => process.send?.({ id: batch.id, ...result, ...settledMemoryMb() }),
      (error: unknown) => process.send?.({ id: batch.id, error: String(error) }),
    );
  });
  process.send?.({
    ready: {
      startupMs: performance.now() - began,
      services,
      temporal: { address: host.temporal.address, namespace: host.temporal.namespace },
      taskQueue: host.temporal.taskQueue,
      ...settledMemoryMb(),
    },
  });
  await new Promise<void>((resolve) => process.once('SIGTERM', resolve));
  await host.stop();
  process.exit(0);
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
