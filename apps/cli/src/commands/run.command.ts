import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { referenceAgents } from '@libs/reference-agents';
import { ingestStack } from '@libs/stack-ingestion';
import { AgentForInstance, oraclePlanAgent } from '@libs/episode-runs';
import type { Scenario } from '@libs/scenarios';
import { printJson, UsageError } from '@cli/cli-output';
import { bundleOf, concurrencyOption, integer, lenientOption, scenariosOf } from '@cli/command-arguments';
import { resolveAgents } from '@cli/agent-modules';
import { inParallel, table, tally, tallyCells, tallyHeadings } from '@cli/episode-batch';
import { withEpisodeEnvironment } from '@cli/episode-environment';
import { isModelAgent, modelAgent } from '@cli/model-agents';
import { loadConfig } from '@libs/config';

interface RunOptions {
  lenient?: boolean;
  agent?: string;
  episodes: number;
  concurrency: number;
  seed: number;
  scenario?: string;
  json?: boolean;
  llmUrl?: string;
  maxTurns: number;
}

const pad = (text: string, width: number): string => text.padEnd(width).slice(0, Math.max(width, text.length));

export const runCommand = (): Command =>
  new Command('run')
    .description('run episodes of a stack bundle’s scenarios with a reference agent, on the twins and Temporal')
    .argument('<bundle-or-scenario>', 'a stack bundle folder, or one scenario file inside one')
    .option(
      '-a, --agent <names>',
      `agents, comma-separated: built-in ones (${[...referenceAgents.keys()].join(', ')}, or all), oracle (the scenario's own plan), openai:<model> (a model at an OpenAI-compatible endpoint, through the episode's tools) or paths to your own modules (./my-agent.mjs); default: oracle for a scenario that declares one, else diligent`,
    )
    .option(
      '--llm-url <url>',
      'the OpenAI-compatible endpoint (…/v1) of openai:<model> agents (or MIRROR_AGENT_LLM_URL)',
    )
    .option('--max-turns <n>', 'model turns per episode for openai:<model> agents', integer('--max-turns', 1, 1000), 50)
    .option('-n, --episodes <n>', 'episodes per scenario (seeds S, S+1, …)', integer('--episodes', 1, 1000), 1)
    .option('-s, --seed <seed>', 'first seed', integer('--seed', 0, 2 ** 31), 1)
    .addOption(concurrencyOption('episodes', 1))
    .option('--scenario <id>', 'only this scenario of the bundle')
    .option('--json', 'print the outcomes as JSON')
    .addOption(lenientOption())
    .action(async (target: string, options: RunOptions) => {
      const requested = options.agent?.split(',').map((n) => n.trim());
      const others = requested?.filter((n) => n !== 'oracle' && !isModelAgent(n)) ?? [];
      const models = requested?.filter(isModelAgent) ?? [];
      const config = loadConfig();
      const endpoint = {
        url: options.llmUrl ?? config.MIRROR_AGENT_LLM_URL,
        key: config.MIRROR_AGENT_LLM_KEY,
        maxTurns: options.maxTurns,
      };
      const resolved = others.length > 0 ? await resolveAgents(others.join(',')) : [];
      const { bundle, scenarioFile } = bundleOf(target);
      const { model, version } = await ingestStack({ kind: 'path', path: bundle, lenient: options.lenient === true });
      const scenarios = scenariosOf(model, scenarioFile, options.scenario);
      // The scenario's own oracle plan when asked for (or by default when it has one); the named agents besides.
      const agentsFor = (scenario: Scenario): AgentForInstance[] => {
        const oracle = () => {
          if (!scenario.oracle) {
            throw new UsageError(`scenario ${scenario.id} declares no oracle plan to run`);
          }
          return oraclePlanAgent(scenario);
        };
        if (!requested) {
          return scenario.oracle ? [oracle()] : [referenceAgents.get('diligent')!];
        }
        return [
          ...(requested.includes('oracle') ? [oracle()] : []),
          ...models.map((name) => modelAgent(name, model, scenario, endpoint)),
          ...resolved,
        ];
      };

      const log = options.json ? silentLog : stderrLog;
      const plan = scenarios.flatMap((scenario) =>
        agentsFor(scenario.scenario).flatMap((agent) =>
          Array.from({ length: options.episodes }, (_, i) => ({ scenario, agent, seed: options.seed + i })),
        ),
      );
      const names = [...new Set(plan.map((p) => p.agent.name))];
      const { results, transcripts } = await withEpisodeEnvironment(
        { path: bundle, model, version },
        log,
        async (environment) => ({
          results: await inParallel(plan, options.concurrency, async ({ scenario, agent, seed }) => {
            const played = await environment.play(scenario, seed, agent);
            if (!options.json) {
              log.log(`${played.scenarioId} ${agent.name} seed ${played.seed}: ${played.status} (${played.reason})`);
            }
            return played;
          }),
          transcripts: environment.transcripts,
        }),
        { concurrency: options.concurrency },
      );
      const summary = names.map((agent) => ({
        agent,
        ...tally(results.filter((r) => r.agent === agent)),
      }));
      const infrastructureErrors = results.filter((r) => r.status === 'infrastructure_error').length;
      if (options.json) {
        printJson({
          stack: { name: model.name, version },
          agents: names,
          infrastructureErrors,
          summary,
          episodes: results,
        });
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
      process.stdout.write(
        `\n${table([['agent', ...tallyHeadings], ...summary.map((t) => [t.agent, ...tallyCells(t)])])}`,
      );
      process.stdout.write(
        `${results.length} episodes, ${infrastructureErrors} infrastructure error${infrastructureErrors === 1 ? '' : 's'} (not graded, not in the pass rate or the mean reward)\n`,
      );
      process.stdout.write(`transcripts in ${transcripts}; grade any episode again with: mirror grade <episode id>\n`);
    });
