import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { createRolloutWorker } from '@libs/episode-worker';
import { RolloutRepository } from '@libs/persistence';
import type { RolloutPlan, RolloutReport } from '@libs/rollouts';
import { ingestStack } from '@libs/stack-ingestion';
import {
  RolloutProgress,
  rolloutProgressQuery,
  rolloutTaskQueue,
  rolloutWorkflowId,
  rolloutWorkflowType,
} from '@libs/workflow-contracts';
import { printJson, ReportedFailure, UsageError } from '@cli/cli-output';
import { bundleOf, integer } from '@cli/command-arguments';
import { withEpisodeEnvironment } from '@cli/episode-environment';
import { progressBar } from '@cli/progress-bar';
import { rolloutReportText } from '@cli/rollout-report-text';
import { rolloutAgentName, rolloutAgents, rolloutTasks, trialPlayer } from '@cli/rollout-trials';

interface RolloutOptions {
  agent: string;
  tasks: string;
  trials: number;
  concurrency: number;
  seeds: number;
  seed: number;
  json?: boolean;
}

export const rolloutCommand = (): Command =>
  new Command('rollout')
    .description(
      'play tasks × trials with one agent as a Temporal workflow that survives worker restarts, store it, and report pass@k, pass^k, mean reward with its interval and violations by rule',
    )
    .argument('<bundle>', 'a stack bundle folder')
    .requiredOption(
      '-a, --agent <agent>',
      "oracle (each scenario's own plan), trap:<id> (one of its traps), a built-in agent (idle, diligent, sloppy, …) or a path to your own module (./my-agent.mjs)",
    )
    .option('-t, --tasks <tasks>', 'all, scenario ids (on --seeds seeds each) or scenario@seed, comma-separated', 'all')
    .option('-k, --trials <k>', 'trials of every task (the k of pass@k and pass^k)', integer('--trials', 1, 100), 1)
    .option('-c, --concurrency <c>', 'trials played at once', integer('--concurrency', 1, 16), 2)
    .option('-n, --seeds <n>', 'seeds of a scenario named without one (S, S+1, …)', integer('--seeds', 1, 1000), 1)
    .option('-s, --seed <seed>', 'the first of those seeds', integer('--seed', 0, 2 ** 31), 1)
    .option('--json', 'print the rollout, its report and every trial as JSON (no progress bar)')
    .action(async (target: string, options: RolloutOptions) => {
      const { bundle, scenarioFile } = bundleOf(target);
      if (scenarioFile) {
        throw new UsageError(`${target} is a scenario file: give its bundle folder and pick the scenario with --tasks`);
      }
      const { model, version } = await ingestStack({ kind: 'path', path: bundle });
      const tasks = rolloutTasks(model, options.tasks, { first: options.seed, count: options.seeds });
      const agents = rolloutAgents();
      const agent = rolloutAgentName(options.agent);
      // Every scenario must be able to give the agent before anything starts: a usage error, not N failed trials.
      for (const scenario of new Set(tasks.map((t) => t.slice(0, t.lastIndexOf('@'))))) {
        await agents(agent, model.scenarios.find((s) => s.scenario.id === scenario)!.scenario);
      }
      const plan: RolloutPlan = {
        id: randomUUID(),
        stackVersion: version,
        bundle: path.basename(bundle),
        agent,
        tasks,
        trials: options.trials,
        concurrency: options.concurrency,
      };
      const showProgress = !options.json && process.stderr.isTTY;
      const { report, status, episodes } = await withEpisodeEnvironment(
        { path: bundle, model, version },
        options.json ? silentLog : stderrLog,
        async (environment) => {
          const { dataSource, temporal, connection, namespace, tenantId } = environment.services;
          const store = new RolloutRepository(dataSource);
          const worker = await createRolloutWorker({
            connection,
            namespace,
            tenantId,
            stackVersion: version,
            store,
            play: trialPlayer(environment, model, agents),
          });
          const working = worker.run();
          try {
            const handle = await temporal.workflow.start(rolloutWorkflowType, {
              args: [plan],
              taskQueue: rolloutTaskQueue(version),
              workflowId: rolloutWorkflowId(plan.id),
            });
            const bar = showProgress ? progressBar(process.stderr) : undefined;
            let polling = true;
            const poll = (async () => {
              while (polling) {
                const progress = await handle.query<RolloutProgress>(rolloutProgressQuery).catch(() => undefined);
                if (progress && polling) {
                  bar?.update(progress);
                }
                await new Promise((resolve) => setTimeout(resolve, 500));
              }
            })();
            // A worker that stops by itself (it failed to bundle or lost Temporal) would leave the result unanswered.
            const finished = await Promise.race([
              handle.result() as Promise<RolloutReport>,
              working.then(() => {
                throw new Error('the rollout worker stopped before the rollout ended');
              }),
            ]).finally(() => {
              polling = false;
            });
            await poll;
            bar?.update({
              total: finished.overall.episodes,
              done: finished.overall.episodes,
              running: 0,
              passed: finished.overall.passed,
              infrastructureErrors: finished.overall.infrastructureErrors,
              finished: true,
            });
            bar?.end();
            const stored = await store.find(tenantId, plan.id);
            return { report: finished, status: stored?.status, episodes: await store.episodes(tenantId, plan.id) };
          } finally {
            worker.shutdown();
            await working.catch(() => undefined);
          }
        },
      );
      if (options.json) {
        printJson({
          rollout: { ...plan, status },
          stack: { name: model.name, version },
          report,
          episodes,
        });
      } else {
        process.stdout.write(rolloutReportText(plan, report));
      }
      // Some lost trials still leave a report worth reading; none graded leaves nothing measured.
      if (report.overall.episodes > 0 && report.overall.graded === 0) {
        throw new ReportedFailure('every trial was an infrastructure error');
      }
    });
