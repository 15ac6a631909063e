import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { ReferenceAgent, referenceAgents } from '@libs/reference-agents';
import type { Scenario } from '@libs/scenarios';
import { ingestStack } from '@libs/stack-ingestion';
import { printJson, ReportedFailure, UsageError } from '@cli/cli-output';
import { bundleOf, concurrencyOption, integer, lenientOption, scenariosOf } from '@cli/command-arguments';
import { resolveAgents } from '@cli/agent-modules';
import { inParallel, table, tally, tallyCells, tallyHeadings } from '@cli/episode-batch';
import { withEpisodeEnvironment } from '@cli/episode-environment';
import { belowOracleProblem, givenOracleRoles, planRoles, ValidityRole } from '@cli/validity-roles';

interface CheckOptions {
  lenient?: boolean;
  seed: number;
  seeds: number;
  concurrency: number;
  scenario?: string;
  agent?: string;
  json?: boolean;
}

const duration = (ms: number): string => {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
};

export const checkCommand = (): Command =>
  new Command('check')
    .description(
      'check that every scenario of a bundle is a valid task on many seeds: its oracle plan passes every one, the idle agent earns nothing, and every trap is caught by the rules it names',
    )
    .argument('<bundle-or-scenario>', 'a stack bundle folder, or one scenario file inside one')
    .option('-s, --seed <seed>', 'the first seed: the episodes play seeds S to S+N-1', integer('--seed', 0, 2 ** 31), 1)
    .option('-n, --seeds <n>', 'how many seeds each scenario is played on, per agent', integer('--seeds', 1, 1000), 20)
    .addOption(concurrencyOption('episodes', 2))
    .option('--scenario <id>', 'only this scenario of the bundle')
    .option(
      '-a, --agent <oracle>',
      "the oracle that must pass every seed: a built-in agent or ./your-agent.mjs (default: the scenario's own oracle plan)",
    )
    .option('--json', 'print the checks as JSON')
    .addOption(lenientOption())
    .action(async (target: string, options: CheckOptions) => {
      const oracles = options.agent === undefined ? [] : await resolveAgents(options.agent);
      if (options.agent !== undefined && oracles.length !== 1) {
        throw new UsageError(`--agent takes one oracle, not ${oracles.length}`);
      }
      const [given] = oracles as (ReferenceAgent | undefined)[];
      const idle = referenceAgents.get('idle')!;
      // A scenario is checked with its own plans: its oracle and its traps (libs/scenarios/ORACLE.md). One without them
      // can only be checked with an oracle the user gives, and no trap proves its rules.
      const rolesOf = (scenario: Scenario): ValidityRole[] => {
        if (scenario.oracle) {
          return planRoles(scenario, idle, given);
        }
        if (!given) {
          throw new UsageError(
            `scenario ${scenario.id} declares no oracle: write its oracle: and traps: (libs/scenarios/ORACLE.md), or give one with --agent`,
          );
        }
        return givenOracleRoles(given, idle);
      };
      const { bundle, scenarioFile } = bundleOf(target);
      const { model, version } = await ingestStack({ kind: 'path', path: bundle, lenient: options.lenient === true });
      const scenarios = scenariosOf(model, scenarioFile, options.scenario);
      const log = options.json ? silentLog : stderrLog;
      // A rule naming what the stack does not have was refused when the bundle was ingested, just above.
      const seeds = { first: options.seed, count: options.seeds };
      const rolesByScenario = new Map(scenarios.map((s) => [s.scenario.id, rolesOf(s.scenario)]));
      const plan = scenarios.flatMap((scenario) =>
        rolesByScenario
          .get(scenario.scenario.id)!
          .flatMap(({ role, judge, agent }) =>
            Array.from({ length: options.seeds }, (_, i) => ({ scenario, role, judge, agent, seed: options.seed + i })),
          ),
      );
      const started = Date.now();
      const checks = await withEpisodeEnvironment(
        { path: bundle, model, version },
        log,
        (environment) =>
          inParallel(plan, options.concurrency, async ({ scenario, role, judge, agent, seed }) => {
            const played = await environment.play(scenario, seed, agent);
            const problem =
              played.status === 'infrastructure_error'
                ? `the episode could not run, so this seed is unproven: ${played.reason}`
                : judge(played);
            if (!options.json) {
              log.log(
                `${scenario.scenario.id} ${agent.name} seed ${seed}: ${problem ? 'BROKEN' : 'ok'} (reward ${played.reward ?? '-'})`,
              );
            }
            return {
              played,
              check: {
                scenario: scenario.scenario.id,
                agent: agent.name,
                role,
                seed,
                episodeId: played.episodeId,
                status: played.status,
                reward: played.reward,
                passed: played.passed,
                valid: !problem,
                ...(problem ? { problem } : {}),
              },
            };
          }),
        { concurrency: options.concurrency },
      );
      const elapsed = Date.now() - started;
      // A trap caught by its rules must still earn less than the oracle did on the same seed.
      const oracleOn = new Map(
        checks.filter((c) => c.check.role === 'oracle').map((c) => [`${c.check.scenario}#${c.check.seed}`, c.played]),
      );
      for (const c of checks) {
        const mustBeBelow = rolesByScenario.get(c.check.scenario)?.find((r) => r.role === c.check.role)?.belowOracle;
        const below =
          mustBeBelow && c.check.valid && c.played.status !== 'infrastructure_error'
            ? belowOracleProblem(c.played, oracleOn.get(`${c.check.scenario}#${c.check.seed}`))
            : undefined;
        if (below) {
          Object.assign(c.check, { valid: false, problem: below });
        }
      }
      const summary = scenarios.flatMap((scenario) =>
        rolesByScenario.get(scenario.scenario.id)!.map(({ role, agent }) => {
          const mine = checks.filter((c) => c.check.scenario === scenario.scenario.id && c.check.role === role);
          return {
            scenario: scenario.scenario.id,
            agent: agent.name,
            role,
            ...tally(mine.map((c) => c.played)),
            valid: mine.every((c) => c.check.valid),
          };
        }),
      );
      const found = checks.map((c) => c.check);
      const problemsFound = found.filter((c) => !c.valid);
      const broken = [...new Set(problemsFound.map((c) => c.scenario))];
      const infrastructureErrors = found.filter((c) => c.status === 'infrastructure_error').length;
      if (options.json) {
        printJson({
          stack: { name: model.name, version },
          valid: broken.length === 0,
          seeds,
          broken,
          infrastructureErrors,
          elapsedSeconds: Math.round(elapsed / 1000),
          summary,
          problems: problemsFound.map(({ scenario, agent, seed, episodeId, problem }) => ({
            scenario,
            agent,
            seed,
            episodeId,
            problem,
          })),
          checks: found,
        });
      } else {
        process.stdout.write(
          table([
            ['scenario', 'agent', ...tallyHeadings, 'check'],
            ...summary.map((s) => [s.scenario, s.agent, ...tallyCells(s), s.valid ? 'ok' : 'BROKEN']),
          ]),
        );
        for (const c of problemsFound) {
          process.stdout.write(
            `BROKEN ${c.scenario} ${c.agent} seed ${c.seed} (episode ${c.episodeId || '-'}): ${c.problem}\n`,
          );
        }
        const seedRange =
          seeds.count === 1 ? `seed ${seeds.first}` : `seeds ${seeds.first}–${seeds.first + seeds.count - 1}`;
        process.stdout.write(
          `${found.length} episodes in ${duration(elapsed)}, ${infrastructureErrors} infrastructure error${infrastructureErrors === 1 ? '' : 's'}\n`,
        );
        process.stdout.write(
          broken.length === 0
            ? `every scenario is a valid task on ${seedRange} (${scenarios.length} scenario${scenarios.length === 1 ? '' : 's'})\n`
            : `broken on ${seedRange}, do not ship: ${broken.join(', ')}${infrastructureErrors > 0 ? ' (an episode that could not run leaves its seed unproven)' : ''}\n`,
        );
      }
      if (broken.length > 0) {
        throw new ReportedFailure(`broken scenarios: ${broken.join(', ')}`);
      }
    });
