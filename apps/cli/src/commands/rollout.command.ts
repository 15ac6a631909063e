import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { commandLineActor } from '@libs/evidence-trail';
import { maxRolloutSeeds, RolloutPlan } from '@libs/rollouts';
import { ingestStack } from '@libs/stack-ingestion';
import { printJson, ReportedFailure, UsageError } from '@cli/cli-output';
import { bundleOf, concurrencyOption, integer, lenientOption, maxConcurrency } from '@cli/command-arguments';
import { withEpisodeEnvironment } from '@cli/episode-environment';
import { rolloutReportText } from '@cli/rollout-report-text';
import { playRolloutOnWorkers } from '@cli/rollout-on-workers';
import { playRollout } from '@cli/rollout-session';
import { rolloutAgentName, rolloutAgents, rolloutTasks } from '@cli/rollout-trials';

interface RolloutOptions {
  lenient?: boolean;
  agent?: string;
  tasks: string;
  trials: number;
  concurrency: number;
  seeds: number;
  seed: number;
  resume?: string;
  json?: boolean;
  onWorkers?: boolean;
}

export const rolloutCommand = (): Command =>
  new Command('rollout')
    .description(
      'play tasks × trials with one agent as a Temporal workflow that survives worker restarts, store it, and report pass@k, pass^k, mean reward with its interval and violations by rule',
    )
    .argument('<bundle>', 'a stack bundle folder')
    .option(
      '-a, --agent <agent>',
      "oracle (each scenario's own plan), trap:<id> (one of its traps), a built-in agent (idle, diligent, sloppy, …) or a path to your own module (./my-agent.mjs)",
    )
    .option('-t, --tasks <tasks>', 'all, scenario ids (on --seeds seeds each) or scenario@seed, comma-separated', 'all')
    .option('-k, --trials <k>', 'trials of every task (the k of pass@k and pass^k)', integer('--trials', 1, 100), 1)
    .addOption(concurrencyOption('trials', 2))
    .option(
      '-n, --seeds <n>',
      'seeds of a scenario named without one (S, S+1, …)',
      integer('--seeds', 1, maxRolloutSeeds),
      1,
    )
    .option('-s, --seed <seed>', 'the first of those seeds', integer('--seed', 0, 2 ** 31), 1)
    .option('--resume <rollout-id>', 'take up a rollout whose command stopped (same bundle, same Temporal server)')
    .option(
      '--on-workers',
      "hand the rollout to the deployment's scaled-out workers (`mirror worker` with MIRROR_GATEWAY_URL) on the Temporal and database TEMPORAL_ADDRESS and DATABASE_URL name, instead of playing it in this process; they play built-in agents and oracle plans",
    )
    .option('--json', 'print the rollout, its report and every trial as JSON (no progress bar)')
    .addOption(lenientOption())
    .action(async (target: string, options: RolloutOptions) => {
      const { bundle, scenarioFile } = bundleOf(target);
      if (scenarioFile) {
        throw new UsageError(`${target} is a scenario file: give its bundle folder and pick the scenario with --tasks`);
      }
      if (!options.agent === !options.resume) {
        throw new UsageError(
          'give --agent for a new rollout, or --resume <rollout-id> (its agent is the one it was given)',
        );
      }
      const { model, version } = await ingestStack({ kind: 'path', path: bundle, lenient: options.lenient === true });
      let plan: RolloutPlan | undefined;
      if (options.agent) {
        const tasks = rolloutTasks(model, options.tasks, { first: options.seed, count: options.seeds });
        const agent = rolloutAgentName(options.agent);
        // Every scenario must be able to give the agent before anything starts: a usage error, not N failed trials.
        const agents = rolloutAgents();
        for (const scenario of new Set(tasks.map((t) => t.slice(0, t.lastIndexOf('@'))))) {
          await agents(agent, model.scenarios.find((s) => s.scenario.id === scenario)!.scenario);
        }
        plan = {
          id: randomUUID(),
          stackVersion: version,
          bundle: path.basename(bundle),
          agent,
          tasks,
          trials: options.trials,
          concurrency: options.concurrency,
          startedBy: { actor: commandLineActor(), actorKind: 'trainer' },
        };
      }
      const log = options.json ? silentLog : stderrLog;
      const request = plan ? { plan } : { resume: options.resume! };
      const follow = { progress: !options.json && process.stderr.isTTY, log: (line: string) => log.log(line) };
      const outcome = options.onWorkers
        ? await playRolloutOnWorkers(model, version, request, { ...follow, serviceLog: log })
        : await withEpisodeEnvironment(
            { path: bundle, model, version },
            log,
            (environment) => playRollout(environment, model, version, request, follow),
            // A resumed rollout plays at its stored concurrency, which no option here can exceed.
            { concurrency: plan?.concurrency ?? maxConcurrency },
          );
      const { report } = outcome;
      if (options.json) {
        printJson({
          rollout: { ...outcome.plan, status: outcome.status },
          stack: { name: model.name, version },
          report,
          episodes: outcome.episodes,
        });
      } else {
        process.stdout.write(rolloutReportText(outcome.plan, report));
      }
      // Some lost trials still leave a report worth reading; none graded leaves nothing measured.
      if (report.overall.episodes > 0 && report.overall.graded === 0) {
        throw new ReportedFailure('every trial was an infrastructure error');
      }
    });
