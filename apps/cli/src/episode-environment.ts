import * as fs from 'node:fs';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { DataSource } from 'typeorm';

import { loadConfig, resolveOperatorKey } from '@libs/config';
import { provideTemporal, ServiceLog } from '@libs/embedded-services';
import {
  AgentForInstance,
  EpisodeInfrastructureError,
  gradeRun,
  policiesFor,
  RunnerContext,
  runEpisode,
  SignallingEpisodeStore,
  WorkflowSignals,
} from '@libs/episode-runs';
import { infrastructureGrade } from '@libs/graders';
import {
  EpisodeGradeRepository,
  instanceKey,
  openDatabase,
  PostgresEpisodeStore,
  RepositoryStackSource,
  StackRepository,
} from '@libs/persistence';
import type { Scenario } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-ingestion';
import { createGatewayServer, TwinEngine } from '@libs/twin-engine';
import type { EpisodeOutcome } from '@libs/workflow-contracts';
import { builtInPacks } from '@twins/index';
import { createWorker, voiceFromConfig } from '@libs/episode-worker';
import { rubricJudge, summarizeGrade } from '@cli/grade-output';

/** One episode as `run` and `check` report it: the outcome without its transcript, the grade, where the rest is. */
export type PlayedEpisode = Omit<EpisodeOutcome, 'transcript' | 'status'> &
  ReturnType<typeof summarizeGrade> & {
    /** `infrastructure_error`: the episode could not run or end (no reward, not the agent's failure). */
    status: EpisodeOutcome['status'] | 'infrastructure_error';
    agent: string;
    transcriptFile: string;
  };

export interface EpisodeEnvironment {
  /** Plays one episode of a scenario with an agent, grades it, and stores both (the transcript in a file). */
  play(scenario: { scenario: Scenario; file: string }, seed: number, agent: AgentForInstance): Promise<PlayedEpisode>;
  transcripts: string;
  /** What a rollout's own worker and store use: the database, Temporal and the tenant the episodes run in. */
  services: {
    dataSource: DataSource;
    temporal: Client;
    connection: NativeConnection;
    namespace: string;
    tenantId: string;
  };
}

/**
 * Everything episodes of a bundle need, for one command: the database (the stack version stored), Temporal, the
 * twins behind a gateway with an event store that signals workflows, and a worker on the command's own task queue.
 * All of it is stopped when `work` ends, however it ends.
 */
export const withEpisodeEnvironment = async <T>(
  bundle: { path: string; model: StackModel; version: string },
  log: ServiceLog,
  work: (environment: EpisodeEnvironment) => Promise<T>,
): Promise<T> => {
  const config = loadConfig();
  const operatorKey = resolveOperatorKey(config);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // Whatever started is stopped, newest first, even when a later service fails to start: a command never hangs on
  // a half-started environment.
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) {
      await stop().catch(() => undefined);
    }
  };
  try {
    return await withServices(config, operatorKey, bundle, log, stops, work);
  } finally {
    await stopAll();
  }
};

const withServices = async <T>(
  config: ReturnType<typeof loadConfig>,
  operatorKey: string,
  bundle: { path: string; model: StackModel; version: string },
  log: ServiceLog,
  stops: (() => Promise<unknown>)[],
  work: (environment: EpisodeEnvironment) => Promise<T>,
): Promise<T> => {
  const database = await openDatabase(config, log);
  stops.push(() => database.close());
  const temporal = await provideTemporal(config, log);
  stops.push(() => temporal.stop());
  const stacks = new StackRepository(database.dataSource);
  await stacks.saveVersion(config.MIRROR_TENANT, bundle.version, bundle.model);
  const signals = new WorkflowSignals();
  const engine = new TwinEngine(
    new SignallingEpisodeStore(new PostgresEpisodeStore(database.dataSource), signals.listener),
    new RepositoryStackSource(stacks),
    builtInPacks,
  );
  const gateway = createGatewayServer(
    engine,
    config.MIRROR_TENANT,
    { error: (message) => process.stderr.write(`gateway: ${message}\n`) },
    operatorKey,
  );
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => gateway.close(resolve)));
  const nativeConnection = await NativeConnection.connect({ address: temporal.address });
  stops.push(() => nativeConnection.close());
  const connection = await Connection.connect({ address: temporal.address });
  stops.push(() => connection.close());
  const taskQueue = `mirror-run-${process.pid}`;
  const worker = await createWorker({
    connection: nativeConnection,
    namespace: temporal.namespace,
    taskQueue,
    voice: voiceFromConfig(config),
    operatorKey,
  });
  const working = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await working;
  });
  const transcripts = path.resolve(config.MIRROR_DATA_DIR, 'transcripts');
  fs.mkdirSync(transcripts, { recursive: true });
  const grades = new EpisodeGradeRepository(database.dataSource);
  const judge = rubricJudge(config);
  const context: RunnerContext = {
    engine,
    temporal: new Client({ connection, namespace: temporal.namespace }),
    gatewayUrl: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`,
    tenantId: config.MIRROR_TENANT,
    stackVersion: bundle.version,
    model: bundle.model,
    taskQueue,
    instanceKey: await instanceKey(database.dataSource, config.MIRROR_INSTANCE_KEY),
    readFile: (file: string) => {
      const full = path.join(bundle.path, file);
      return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : undefined;
    },
  };
  const play: EpisodeEnvironment['play'] = async ({ scenario, file }, seed, agent) => {
    let outcome: EpisodeOutcome;
    try {
      outcome = await runEpisode(context, signals, scenario, seed, agent);
    } catch (error) {
      if (!(error instanceof EpisodeInfrastructureError)) {
        throw error;
      }
      // One lost episode does not end a batch: it is reported, ungraded, and the next one runs.
      log.log(`${scenario.id} ${agent.name} seed ${seed}: ${error.message}`);
      return {
        episodeId: error.episodeId ?? '',
        scenarioId: scenario.id,
        seed,
        status: 'infrastructure_error',
        reason: error.message,
        agentActions: 0,
        simulatedBusinessDays: 0,
        finalTerms: null,
        ...summarizeGrade(infrastructureGrade(policiesFor(bundle.model, scenario), [error.message])),
        agent: agent.name,
        transcriptFile: '',
      };
    }
    const grade = await gradeRun(context, scenario, seed, outcome.episodeId, outcome, judge ? { judge } : {});
    await grades.saveRun({
      episodeId: outcome.episodeId,
      scenarioId: scenario.id,
      scenarioFile: file,
      seed,
      agent: agent.name,
      outcome,
    });
    await grades.saveGrade(outcome.episodeId, grade.policies.join(','), grade.graderVersion, grade);
    const transcriptFile = path.join(transcripts, `${outcome.episodeId}.json`);
    fs.writeFileSync(transcriptFile, `${JSON.stringify(outcome.transcript, null, 2)}\n`);
    const { transcript: _transcript, ...summary } = outcome;
    return { ...summary, ...summarizeGrade(grade), agent: agent.name, transcriptFile };
  };
  return work({
    play,
    transcripts,
    services: {
      dataSource: database.dataSource,
      temporal: context.temporal,
      connection: nativeConnection,
      namespace: temporal.namespace,
      tenantId: config.MIRROR_TENANT,
    },
  });
};
