import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { policyReferenceProblems } from '@libs/graders';
import { referenceAgents } from '@libs/reference-agents';
import { ingestStack, StackModel } from '@libs/stack-ingestion';
import { builtInPacks } from '@twins/index';
import { printJson, ReportedFailure } from '@cli/cli-output';
import { bundleOf, integer, scenariosOf } from '@cli/command-arguments';
import { PlayedEpisode, withEpisodeEnvironment } from '@cli/episode-environment';

interface CheckOptions {
  seed: number;
  scenario?: string;
  json?: boolean;
}

/** What each reference agent must get for a task to be valid, and why it matters. */
const expectations: { agent: string; judge: (e: PlayedEpisode) => string | undefined }[] = [
  {
    agent: 'idle',
    judge: (e) =>
      e.passed !== false || (e.reward ?? 0) > 0
        ? `an agent that does nothing earned ${e.reward} (passed: ${e.passed}): the task rewards doing nothing`
        : undefined,
  },
  {
    agent: 'diligent',
    judge: (e) =>
      e.passed
        ? undefined
        : `the diligent agent did not pass (${e.status}: ${e.reason}; violations: ${
            e.verdicts
              .filter((v) => v.status === 'fail' && !v.milestone)
              .map((v) => v.rule)
              .join(', ') || 'none'
          }): the task cannot be done within its policy, or its success terms are out of reach`,
  },
  {
    agent: 'sloppy',
    judge: (e) => {
      // Sloppy tells the supplier its target price and splits the purchase under the approval threshold.
      const caught = new Set(e.verdicts.filter((v) => v.status === 'fail').map((v) => v.kind));
      const missed = (['disclosure', 'approval'] as const).filter((kind) => !caught.has(kind));
      return missed.length > 0 || (e.reward ?? 0) > 0
        ? `the sloppy agent's ${missed.join(' and ') || 'violations'} went unpunished (reward ${e.reward}): the policy set has no rule that catches it`
        : undefined;
    },
  },
];

/** Events the rules name that no twin of the stack records: such a rule could never fail. */
const policyProblems = (model: StackModel, scenarios: ReturnType<typeof scenariosOf>) => {
  const packs = model.services.flatMap((s) => (s.pack ? [s.pack] : []));
  const events = new Set(packs.flatMap((pack) => builtInPacks.get(pack)?.domainEventNames ?? []));
  const files = new Set(scenarios.flatMap((s) => s.scenario.policies));
  return (model.policies ?? [])
    .filter((p) => files.has(p.file))
    .flatMap((p) =>
      policyReferenceProblems(p.policy, { events, packs: new Set(packs) }).map((problem) => ({
        file: p.file,
        ...problem,
      })),
    );
};

export const checkCommand = (): Command =>
  new Command('check')
    .description(
      'check that every scenario of a bundle is a valid task: idle fails, diligent passes within policy, sloppy is caught',
    )
    .argument('<bundle-or-scenario>', 'a stack bundle folder, or one scenario file inside one')
    .option('-s, --seed <seed>', 'the seed of the episodes', integer('--seed', 0, 2 ** 31), 1)
    .option('--scenario <id>', 'only this scenario of the bundle')
    .option('--json', 'print the checks as JSON')
    .action(async (target: string, options: CheckOptions) => {
      const { bundle, scenarioFile } = bundleOf(target);
      const { model, version } = await ingestStack({ kind: 'path', path: bundle });
      const scenarios = scenariosOf(model, scenarioFile, options.scenario);
      const log = options.json ? silentLog : stderrLog;
      const problems = policyProblems(model, scenarios);
      if (problems.length > 0) {
        if (options.json) {
          printJson({
            stack: { name: model.name, version },
            valid: false,
            broken: [],
            policyProblems: problems,
            checks: [],
          });
        } else {
          problems.forEach((p) => process.stdout.write(`BROKEN ${p.file} ${p.pointer}: ${p.message}\n`));
        }
        throw new ReportedFailure('the policy sets name events no twin records');
      }
      const checks = await withEpisodeEnvironment({ path: bundle, model, version }, log, async (environment) => {
        const found: { scenario: string; agent: string; episodeId: string; valid: boolean; problem?: string }[] = [];
        for (const scenario of scenarios) {
          for (const { agent, judge } of expectations) {
            const played = await environment.play(scenario, options.seed, referenceAgents.get(agent)!);
            const problem =
              played.status === 'infrastructure_error'
                ? `the episode could not run, so this check is inconclusive: ${played.reason}`
                : judge(played);
            found.push({
              scenario: scenario.scenario.id,
              agent,
              episodeId: played.episodeId,
              valid: !problem,
              ...(problem ? { problem } : {}),
            });
          }
        }
        return found;
      });
      const broken = [...new Set(checks.filter((c) => !c.valid).map((c) => c.scenario))];
      if (options.json) {
        printJson({
          stack: { name: model.name, version },
          valid: broken.length === 0,
          broken,
          policyProblems: [],
          checks,
        });
      } else {
        for (const c of checks) {
          process.stdout.write(
            `${c.valid ? 'ok    ' : 'BROKEN'} ${c.scenario} ${c.agent}${c.problem ? `: ${c.problem}` : ''}\n`,
          );
        }
        process.stdout.write(
          broken.length === 0
            ? `every scenario is a valid task (${scenarios.length})\n`
            : `broken, do not ship: ${broken.join(', ')}\n`,
        );
      }
      if (broken.length > 0) {
        throw new ReportedFailure(`broken scenarios: ${broken.join(', ')}`);
      }
    });
