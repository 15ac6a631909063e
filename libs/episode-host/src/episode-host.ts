import * as fs from 'node:fs';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { DataSource } from 'typeorm';

import { loadConfig, MirrorConfig, resolveOperatorKey } from '@libs/config';
import { provideTemporal, ServiceLog, stderrLog } from '@libs/embedded-services';
import { AgentForInstance, RunningEpisodes } from '@libs/episode-runs';
import { createWorker, voiceFromConfig } from '@libs/episode-worker';
import type { Grade } from '@libs/graders';
import {
  EpisodeCallLog,
  EpisodeCallRepository,
  instanceKey,
  openDatabase,
  PostgresEpisodeStore,
  RepositoryStackSource,
  StackRepository,
} from '@libs/persistence';
import {
  observeGateway,
  temporalClientInterceptors,
  temporalWorkerPlugins,
  Tracing,
  tracingFromConfig,
} from '@libs/telemetry';
import { serveInProcess } from '@libs/twin-client';
import { CachedStackSource, createGatewayServer, EpisodeStarter, memoryBudgetOf, TwinEngine } from '@libs/twin-engine';
import type { EpisodeOutcome } from '@libs/workflow-contracts';
import { builtInPacks } from '@twins/index';

import { episodePlayer } from './episode-player';
import type { HostedBundle, HostedEnvironment, PlayedEpisode, ScenarioOfBundle } from './hosted-episodes';

export interface EpisodeHost {
  config: MirrorConfig;
  dataSource: DataSource;
  /**
   * Temporal as the host reaches it: a client, the worker's native connection, the namespace and task queue, and the
   * frontend's address (where another worker process polls the same queue).
   */
  temporal: { client: Client; connection: NativeConnection; namespace: string; taskQueue: string; address: string };
  engine: TwinEngine;
  signals: RunningEpisodes;
  /** The twins' gateway every episode's agent calls (`/e/{episode}/{service}/…`). */
  gatewayUrl: string;
  /** Where transcripts are written, one JSON file per episode. */
  transcripts: string;
  environments: ReadonlyMap<string, HostedEnvironment>;
  /**
   * Grades an ended episode as `mirror run` does (the twins' log and final state, the rubric judge when one is set)
   * and stores the run, the grade and the transcript file, so `mirror grade` finds it again.
   */
  gradeAndStore(
    environment: HostedEnvironment,
    scenario: ScenarioOfBundle,
    seed: number,
    outcome: EpisodeOutcome,
    agent: string,
  ): Promise<{ grade: Grade; transcriptFile: string }>;
  /**
   * Plays one episode of a scenario with an in-process agent, grades it, and stores both. `startedBy`: who starts it,
   * when not the host's own starter (a rollout's trial).
   */
  play(
    environment: HostedEnvironment,
    scenario: ScenarioOfBundle,
    seed: number,
    agent: AgentForInstance,
    startedBy?: EpisodeStarter,
  ): Promise<PlayedEpisode>;
  /** Stops everything that started, newest first. */
  stop(): Promise<void>;
}

export interface EpisodeHostOptions {
  /** The gateway's port (0, the default: any free one). */
  gatewayPort?: number;
  /** The in-process worker's task queue; its own by default, so no other process's worker takes its episodes. */
  taskQueue?: string;
  /** Tracing the caller started (tests, with an in-memory exporter); else the settings' (OTEL_EXPORTER_OTLP_ENDPOINT). */
  tracing?: Tracing;
  /** Episodes played at once (1 by default): the worker's slots and cache are sized for them. */
  concurrency?: number;
  /**
   * Who starts the episodes this process plays when a start names nobody (the person running the command), as the
   * evidence trail records it; Mirror's own machinery when absent.
   */
  startedBy?: EpisodeStarter;
}

/**
 * Everything episodes of some bundles need, in one process: the database (each bundle's stack version stored),
 * Temporal (embedded unless TEMPORAL_ADDRESS), the twins behind a gateway with an event store workflows read,
 * and a worker on the process's own task queue. Shared by `mirror run`, `check`, `up` and `rollout`.
 */
export const startEpisodeHost = async (
  bundles: readonly HostedBundle[],
  log: ServiceLog,
  options: EpisodeHostOptions = {},
): Promise<EpisodeHost> => {
  const config = loadConfig();
  const operatorKey = resolveOperatorKey(config);
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    // The SDK core's own lines went into `--json` output: only ERROR is printed now (its warning that a workflow task
    // ran over 5 s is what a `wait` running the parties' steps does by design). Not forwarded to the JS logger: the
    // forwarding channel kept `mirror up` alive after everything had stopped (SIGTERM never ended it).
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, console: {} } },
  });
  // Whatever started is stopped, newest first, even when a later service fails to start: a command never hangs on
  // a half-started environment.
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const next of stops.splice(0).reverse()) {
      await next().catch(() => undefined);
    }
  };
  try {
    return await startServices(config, operatorKey, bundles, log, options, stops, stop);
  } catch (error) {
    await stop();
    throw error;
  }
};

/** Runs `work` in a host of these bundles, stopped when `work` ends, however it ends. */
export const withEpisodeHost = async <T>(
  bundles: readonly HostedBundle[],
  log: ServiceLog,
  work: (host: EpisodeHost) => Promise<T>,
  options: EpisodeHostOptions = {},
): Promise<T> => {
  const host = await startEpisodeHost(bundles, log, options);
  try {
    return await work(host);
  } finally {
    await host.stop();
  }
};

const listen = (server: Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

const startServices = async (
  config: MirrorConfig,
  operatorKey: string,
  bundles: readonly HostedBundle[],
  log: ServiceLog,
  options: EpisodeHostOptions,
  stops: (() => Promise<unknown>)[],
  stop: () => Promise<void>,
): Promise<EpisodeHost> => {
  const tracing = options.tracing ?? tracingFromConfig(config, 'mirror');
  if (tracing && !options.tracing) {
    stops.push(() => tracing.stop());
  }
  const database = await openDatabase(config, log);
  stops.push(() => database.close());
  const temporal = await provideTemporal(config, log);
  stops.push(() => temporal.stop());
  const stacks = new StackRepository(database.dataSource);
  for (const bundle of bundles) {
    await stacks.saveVersion(config.MIRROR_TENANT, bundle.version, bundle.model);
  }
  const signals = new RunningEpisodes();
  // No signal per twin event: the workflow reads the log itself at every `wait` and `finish` (the only points where
  // business time passes or the episode ends), so an agent's tool call answers without a Temporal round trip. A signal
  // would also be harmful now: one arriving while the workflow's last task runs the parties' final steps (local
  // activities) makes Temporal refuse that task's completion, and the agent's `finish` update with it.
  // `signals`: the episodes this process plays and what each holds until it ends (live episodes forget theirs there).
  // Reads leave no event in the log; they are recorded beside it, so reviewers see every call an agent made.
  const calls = new EpisodeCallLog(new EpisodeCallRepository(database.dataSource), (message) => log.log(message));
  stops.push(() => calls.close());
  const engine = new TwinEngine(
    new PostgresEpisodeStore(database.dataSource),
    new CachedStackSource(new RepositoryStackSource(stacks)),
    builtInPacks,
    memoryBudgetOf(config.MIRROR_TWIN_MEMORY_MB),
    calls,
  );
  const gateway = createGatewayServer(
    engine,
    config.MIRROR_TENANT,
    { error: (message) => stderrLog.log(`gateway: ${message}`) },
    operatorKey,
  );
  observeGateway(gateway, { tenantId: config.MIRROR_TENANT, metricsKey: operatorKey });
  const gatewayPort = await listen(gateway, options.gatewayPort ?? 0);
  stops.push(() => new Promise((resolve) => gateway.close(resolve)));
  // Personas', the operator's and in-process agents' twin calls reach it without a socket; agents over HTTP still can.
  const unserve = serveInProcess(`http://127.0.0.1:${gatewayPort}`, gateway);
  stops.push(() => Promise.resolve(unserve()));
  const nativeConnection = await NativeConnection.connect({ address: temporal.address });
  stops.push(() => nativeConnection.close());
  const connection = await Connection.connect({ address: temporal.address });
  stops.push(() => connection.close());
  const taskQueue = options.taskQueue ?? `mirror-run-${process.pid}`;
  const worker = await createWorker({
    connection: nativeConnection,
    namespace: temporal.namespace,
    taskQueue,
    voice: voiceFromConfig(config),
    operatorKey,
    plugins: temporalWorkerPlugins(tracing),
    episodesAtOnce: options.concurrency ?? 1,
  });
  const working = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await working;
  });
  const transcripts = path.resolve(config.MIRROR_DATA_DIR, 'transcripts');
  fs.mkdirSync(transcripts, { recursive: true });
  const temporalClient = new Client({
    connection,
    namespace: temporal.namespace,
    interceptors: temporalClientInterceptors(),
  });
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const key = await instanceKey(database.dataSource, config.MIRROR_INSTANCE_KEY);
  const environments = new Map(
    bundles.map((bundle): [string, HostedEnvironment] => [
      bundle.id,
      {
        bundle,
        context: {
          engine,
          temporal: temporalClient,
          gatewayUrl,
          tenantId: config.MIRROR_TENANT,
          stackVersion: bundle.version,
          model: bundle.model,
          taskQueue,
          instanceKey: key,
          ...(options.startedBy ? { startedBy: options.startedBy } : {}),
          readFile: (file: string) => {
            const full = path.join(bundle.path, file);
            return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : undefined;
          },
        },
      },
    ]),
  );
  const { gradeAndStore, play } = episodePlayer({
    config,
    dataSource: database.dataSource,
    signals,
    log,
    transcripts,
    calls,
  });
  return {
    config,
    dataSource: database.dataSource,
    temporal: {
      client: temporalClient,
      connection: nativeConnection,
      namespace: temporal.namespace,
      taskQueue,
      address: temporal.address,
    },
    engine,
    signals,
    gatewayUrl,
    transcripts,
    environments,
    gradeAndStore,
    play,
    stop,
  };
};
