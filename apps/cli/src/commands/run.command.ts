import * as fs from 'node:fs';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { Command, InvalidArgumentError } from 'commander';

import { loadConfig } from '@libs/config';
import { silentLog, stderrLog, provideTemporal } from '@libs/embedded-services';
import { gradeRun, runEpisode, SignallingEpisodeStore, WorkflowSignals } from '@libs/episode-runs';
import type { Grade } from '@libs/graders';
import {
  EpisodeGradeRepository,
  openDatabase,
  PostgresEpisodeStore,
  RepositoryStackSource,
  StackRepository,
} from '@libs/persistence';
import { referenceAgents } from '@libs/reference-agents';
import { ingestStack } from '@libs/stack-ingestion';
import { createGatewayServer, TwinEngine } from '@libs/twin-engine';
import type { EpisodeOutcome } from '@libs/workflow-contracts';
import { builtInPacks } from '@twins/index';
import { createWorker, voiceFromConfig } from '@worker/worker-factory';
import { printJson, UsageError } from '@cli/cli-output';
import { rubricJudge, summarizeGrade } from '@cli/grade-output';

interface RunOptions {
  agent: string;
  episodes: number;
  seed: number;
  scenario?: string;
  json?: boolean;
}

const integer = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
  }
  return n;
};

/** A scenario file names its bundle: the nearest folder above it with a mirror.yaml. */
const bundleOf = (target: string): { bundle: string; scenarioFile?: string } => {
  const absolute = path.resolve(target);
  if (!fs.existsSync(absolute)) {
    throw new UsageError(`${target}: no such file or folder`);
  }
  if (fs.statSync(absolute).isDirectory()) {
    return { bundle: absolute };
  }
  for (let dir = path.dirname(absolute); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'mirror.yaml'))) {
      return { bundle: dir, scenarioFile: path.relative(dir, absolute).split(path.sep).join('/') };
    }
  }
  throw new UsageError(`${target} is not inside a stack bundle (no mirror.yaml above it)`);
};

const pad = (text: string, width: number): string => text.padEnd(width).slice(0, Math.max(width, text.length));

export const runCommand = (): Command =>
  new Command('run')
    .description('run episodes of a stack bundle’s scenarios with a reference agent, on the twins and Temporal')
    .argument('<bundle-or-scenario>', 'a stack bundle folder, or one scenario file inside one')
    .option(
      '-a, --agent <names>',
      `reference agents, comma-separated, or all: ${[...referenceAgents.keys()].join(', ')}`,
      'diligent',
    )
    .option('-n, --episodes <n>', 'episodes per scenario (seeds S, S+1, …)', integer('--episodes', 1, 1000), 1)
    .option('-s, --seed <seed>', 'first seed', integer('--seed', 0, 2 ** 31), 1)
    .option('--scenario <id>', 'only this scenario of the bundle')
    .option('--json', 'print the outcomes as JSON')
    .action(async (target: string, options: RunOptions) => {
      const names =
        options.agent === 'all' ? [...referenceAgents.keys()] : options.agent.split(',').map((n) => n.trim());
      const agents = names.map((name) => {
        const agent = referenceAgents.get(name);
        if (!agent) {
          throw new UsageError(`no reference agent "${name}"; use ${[...referenceAgents.keys()].join(', ')} or all`);
        }
        return agent;
      });
      const { bundle, scenarioFile } = bundleOf(target);
      const { model, version } = await ingestStack({ kind: 'path', path: bundle });
      const scenarios = model.scenarios.filter(
        (s) => (!scenarioFile || s.file === scenarioFile) && (!options.scenario || s.scenario.id === options.scenario),
      );
      if (scenarios.length === 0) {
        throw new UsageError(
          `no scenario to run: the bundle has ${model.scenarios.map((s) => `${s.scenario.id} (${s.file})`).join(', ') || 'none'}`,
        );
      }

      const config = loadConfig();
      const log = options.json ? silentLog : stderrLog;
      Runtime.install({ logger: new DefaultLogger('WARN') });
      const database = await openDatabase(config, log);
      const temporal = await provideTemporal(config, log);
      const stacks = new StackRepository(database.dataSource);
      await stacks.saveVersion(config.MIRROR_TENANT, version, model);
      const signals = new WorkflowSignals();
      const engine = new TwinEngine(
        new SignallingEpisodeStore(new PostgresEpisodeStore(database.dataSource), signals.listener),
        new RepositoryStackSource(stacks),
        builtInPacks,
      );
      const gateway = createGatewayServer(engine, config.MIRROR_TENANT, {
        error: (message) => process.stderr.write(`gateway: ${message}\n`),
      });
      await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
      const nativeConnection = await NativeConnection.connect({ address: temporal.address });
      const connection = await Connection.connect({ address: temporal.address });
      const taskQueue = `mirror-run-${process.pid}`;
      const worker = await createWorker({
        connection: nativeConnection,
        namespace: temporal.namespace,
        taskQueue,
        voice: voiceFromConfig(config),
      });
      const working = worker.run();
      const transcripts = path.resolve(config.MIRROR_DATA_DIR, 'transcripts');
      fs.mkdirSync(transcripts, { recursive: true });
      const grades = new EpisodeGradeRepository(database.dataSource);
      const judge = rubricJudge(config);
      const results: (Omit<EpisodeOutcome, 'transcript'> &
        ReturnType<typeof summarizeGrade> & { agent: string; transcriptFile: string })[] = [];
      try {
        const context = {
          engine,
          temporal: new Client({ connection, namespace: temporal.namespace }),
          gatewayUrl: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`,
          tenantId: config.MIRROR_TENANT,
          stackVersion: version,
          model,
          taskQueue,
          readFile: (file: string) => {
            const full = path.join(bundle, file);
            return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : undefined;
          },
        };
        for (const { scenario, file } of scenarios) {
          for (const agent of agents) {
            for (let i = 0; i < options.episodes; i++) {
              const seed = options.seed + i;
              const outcome = await runEpisode(context, signals, scenario, seed, agent);
              const grade: Grade = await gradeRun(context, scenario, seed, outcome.episodeId, outcome, {
                ...(judge ? { judge } : {}),
              });
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
              results.push({ ...summary, ...summarizeGrade(grade), agent: agent.name, transcriptFile });
              if (!options.json) {
                log.log(`${scenario.id} ${agent.name} seed ${outcome.seed}: ${outcome.status} (${outcome.reason})`);
              }
            }
          }
        }
      } finally {
        worker.shutdown();
        await working;
        await connection.close();
        await nativeConnection.close();
        await new Promise((resolve) => gateway.close(resolve));
        await temporal.stop();
        await database.close();
      }
      if (options.json) {
        printJson({ stack: { name: model.name, version }, agents: names, episodes: results });
        return;
      }
      const widths = [30, 9, 5, 9, 6, 6, 6, 10, 40];
      const row = (cells: string[]) => `${cells.map((c, i) => pad(c, widths[i])).join('  ')}\n`;
      process.stdout.write(
        row(['scenario', 'agent', 'seed', 'outcome', 'passed', 'reward', 'turns', 'unit price', 'policy violations']),
      );
      for (const r of results) {
        process.stdout.write(
          row([
            r.scenarioId,
            r.agent,
            String(r.seed),
            r.status,
            r.passed === null ? '-' : r.passed ? 'yes' : 'no',
            r.reward === null ? '-' : r.reward.toFixed(2),
            String(r.agentActions),
            r.finalTerms ? String(r.finalTerms.unitPrice) : '-',
            r.verdicts
              .filter((v) => v.status === 'fail' && !v.milestone)
              .map((v) => v.rule)
              .join(', ') || 'none',
          ]),
        );
      }
      for (const agent of agents) {
        const mine = results.filter((r) => r.agent === agent.name);
        const passed = mine.filter((r) => r.passed).length;
        const rewards = mine.flatMap((r) => (r.reward === null ? [] : [r.reward]));
        const mean = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
        process.stdout.write(
          `${agent.name}: ${passed} of ${mine.length} episodes passed, mean reward ${mean.toFixed(2)}\n`,
        );
      }
      process.stdout.write(`transcripts in ${transcripts}; grade any episode again with: mirror grade <episode id>\n`);
    });
