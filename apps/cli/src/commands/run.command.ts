import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { referenceAgents } from '@libs/reference-agents';
import { ingestStack } from '@libs/stack-ingestion';
import { printJson, UsageError } from '@cli/cli-output';
import { bundleOf, integer, scenariosOf } from '@cli/command-arguments';
import { PlayedEpisode, withEpisodeEnvironment } from '@cli/episode-environment';

interface RunOptions {
  agent: string;
  episodes: number;
  seed: number;
  scenario?: string;
  json?: boolean;
}

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
      const scenarios = scenariosOf(model, scenarioFile, options.scenario);

      const log = options.json ? silentLog : stderrLog;
      const results: PlayedEpisode[] = [];
      const transcripts = await withEpisodeEnvironment({ path: bundle, model, version }, log, async (environment) => {
        for (const scenario of scenarios) {
          for (const agent of agents) {
            for (let i = 0; i < options.episodes; i++) {
              const played = await environment.play(scenario, options.seed + i, agent);
              results.push(played);
              if (!options.json) {
                log.log(`${played.scenarioId} ${agent.name} seed ${played.seed}: ${played.status} (${played.reason})`);
              }
            }
          }
        }
        return environment.transcripts;
      });
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
        const lost = mine.filter((r) => r.status === 'infrastructure_error').length;
        const passed = mine.filter((r) => r.passed).length;
        const rewards = mine.flatMap((r) => (r.reward === null ? [] : [r.reward]));
        const mean = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
        process.stdout.write(
          `${agent.name}: ${passed} of ${mine.length - lost} episodes passed, mean reward ${mean.toFixed(2)}${
            lost ? ` (${lost} lost to infrastructure errors, not counted)` : ''
          }\n`,
        );
      }
      process.stdout.write(`transcripts in ${transcripts}; grade any episode again with: mirror grade <episode id>\n`);
    });
