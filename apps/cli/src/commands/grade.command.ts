import * as path from 'node:path';

import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { gradeModels, playedPersonas, recordEpisodeGrade } from '@libs/episode-host';
import { commandLineActor } from '@libs/evidence-trail';
import { gradeRun, policiesFor } from '@libs/episode-runs';
import type { Grade } from '@libs/graders';
import { EpisodeGradeRepository, instanceKey, PostgresEpisodeStore, RepositoryStackSource } from '@libs/persistence';
import { ingestStack } from '@libs/stack-ingestion';
import { TwinEngine } from '@libs/twin-engine';
import type { EpisodeOutcome } from '@libs/workflow-contracts';
import { builtInPacks } from '@twins/index';
import { printJson, UsageError } from '@cli/cli-output';
import { withDatabase } from '@cli/database-session';
import { rubricJudge, summarizeGrade } from '@cli/grade-output';

interface GradeOptions {
  policies?: string;
  json?: boolean;
}

export const gradeCommand = (): Command =>
  new Command('grade')
    .description(
      'grade a stored episode from its event log (one of `mirror run`, one started through the gateway with a ' +
        'scenario, a fork): by the policies its scenario names, or a newer bundle’s',
    )
    .argument('<episode-id>', 'the episode, as `mirror run` or the gateway named it')
    .option(
      '--policies <bundle>',
      'judge by the policy sets of this bundle (a new policy version); both grades are kept',
    )
    .option('--json', 'print the grade as JSON')
    .action(async (episodeId: string, options: GradeOptions) => {
      const log = options.json ? silentLog : stderrLog;
      const newer = options.policies
        ? await ingestStack({ kind: 'path', path: path.resolve(options.policies) })
        : undefined;
      const result = await withDatabase(log, async ({ config, dataSource, stacks }) => {
        const grades = new EpisodeGradeRepository(dataSource);
        const episodes = new PostgresEpisodeStore(dataSource);
        // The command acts for MIRROR_TENANT: another tenant's episode is not there for it.
        const descriptor = await episodes.findEpisode(config.MIRROR_TENANT, episodeId);
        if (!descriptor) {
          throw new UsageError(`no episode "${episodeId}" is stored`);
        }
        const task = descriptor.scenario;
        if (!task) {
          throw new UsageError(
            `episode ${episodeId} plays no scenario, so there is nothing to grade it against: ` +
              'episodes of `mirror run` play one, and POST /episodes takes one as "scenario": {"id": …}',
          );
        }
        const stored = await stacks.findVersion(descriptor.tenantId, descriptor.stackVersion);
        const scenario = stored?.model.scenarios.find((s) => s.scenario.id === task.id)?.scenario;
        if (!stored || !scenario) {
          throw new UsageError(`the stack version of episode ${episodeId} no longer has scenario ${task.id}`);
        }
        // How the episode ended, when `mirror run` played it to its end; a fork or an episode driven through the
        // gateway has no outcome of its own, and is graded on its rules without a reward.
        const run = await grades.findRun<EpisodeOutcome>(descriptor.tenantId, episodeId);
        const policies = newer ? policiesFor(newer.model, scenario) : undefined;
        if (policies && policies.length === 0) {
          throw new UsageError(
            `${options.policies} has none of the policy sets scenario ${scenario.id} names (${scenario.policies.join(', ')})`,
          );
        }
        const engine = new TwinEngine(episodes, new RepositoryStackSource(stacks), builtInPacks);
        const judge = rubricJudge(config);
        const grade: Grade = await gradeRun(
          {
            engine,
            tenantId: descriptor.tenantId,
            model: stored.model,
            instanceKey: await instanceKey(dataSource, config.MIRROR_INSTANCE_KEY),
          },
          scenario,
          task.seed,
          episodeId,
          run?.outcome,
          {
            ...(policies ? { policies } : {}),
            ...(judge ? { judge } : {}),
          },
        );
        // Stored as a played episode's grade is: through the episode's redactor (evidence quotes what the agent wrote).
        const { redactor } = await engine.episode(descriptor.tenantId, episodeId);
        const models = gradeModels(grade, judge, await playedPersonas(dataSource, descriptor.tenantId, episodeId));
        await grades.saveGrade(
          descriptor.tenantId,
          episodeId,
          grade.policies.join(','),
          grade.graderVersion,
          redactor.json(grade).value,
          models,
        );
        await recordEpisodeGrade(dataSource, {
          tenant: descriptor.tenantId,
          episodeId,
          grade,
          agent: run?.agent ?? '-',
          action: 'episode.regraded',
          actor: commandLineActor(),
          versions: {
            stack: descriptor.stackVersion,
            scenario: task.id,
            scenarioSeed: task.seed,
            worldSeed: descriptor.seed,
            ...models,
          },
        });
        const history = await grades.grades<Grade>(descriptor.tenantId, episodeId);
        return {
          run: {
            scenarioId: task.id,
            seed: task.seed,
            agent: run?.agent ?? '-',
            status: run?.outcome.status ?? 'no outcome',
          },
          grade,
          history,
        };
      });
      const { run, grade, history } = result;
      if (options.json) {
        printJson({
          episodeId,
          scenarioId: run.scenarioId,
          agent: run.agent,
          seed: run.seed,
          status: run.status,
          ...summarizeGrade(grade),
          grades: history.map((h) => ({
            policies: h.policies,
            graderVersion: h.graderVersion,
            gradedAt: h.gradedAt,
            reward: h.grade.reward,
            passed: h.grade.passed,
          })),
        });
        return;
      }
      process.stdout.write(
        `${episodeId} ${run.scenarioId} ${run.agent} seed ${run.seed}: ${run.status}; ` +
          `reward ${grade.reward ?? '-'}, ${grade.passed ? 'passed' : 'not passed'} (${grade.policies.join(', ')})\n`,
      );
      for (const v of grade.verdicts) {
        process.stdout.write(`  ${v.status.padEnd(14)} ${v.severity.padEnd(8)} ${v.rule} (${v.clause})\n`);
        for (const e of v.evidence.slice(0, 3)) {
          process.stdout.write(`      #${e.seq} ${e.event}: ${e.excerpt}\n`);
        }
      }
      process.stdout.write(
        `grades kept: ${history.map((h) => `${h.policies} → ${h.grade.reward ?? '-'}`).join('; ')}\n`,
      );
    });
