import * as fs from 'node:fs';
import * as path from 'node:path';

import type { DataSource } from 'typeorm';

import type { MirrorConfig } from '@libs/config';
import type { ServiceLog } from '@libs/embedded-services';
import {
  AgentForInstance,
  EpisodeInfrastructureError,
  followLog,
  gradeRun,
  policiesFor,
  RunnerContext,
  runEpisode,
  RunningEpisodes,
} from '@libs/episode-runs';
import { Grade, infrastructureGrade } from '@libs/graders';
import { EpisodeGradeRepository, PostgresEpisodeStore } from '@libs/persistence';
import type { RolloutEpisodeResult } from '@libs/rollouts';
import { mirrorMetrics } from '@libs/telemetry';
import type { EpisodeStarter } from '@libs/twin-engine';
import type { EpisodeOutcome } from '@libs/workflow-contracts';

import type { HostedBundle, PlayedEpisode, ScenarioOfBundle } from './hosted-episodes';
import { recordEpisodeGrade } from './episode-evidence';
import { gradeModels, rubricJudge, summarizeGrade } from './grade-summary';

/** What playing needs of a bundle's environment: its stored version and model, and how the runner reaches it. */
export interface PlayableEnvironment {
  bundle: Pick<HostedBundle, 'model' | 'version'>;
  context: RunnerContext;
}

export interface EpisodePlayerServices {
  config: MirrorConfig;
  dataSource: DataSource;
  signals: RunningEpisodes;
  log: ServiceLog;
  /** Where transcripts are written, one JSON file per episode. */
  transcripts: string;
  /**
   * The log of calls that changed nothing, when this process's twins answer them: written out before an episode's
   * grading commits to them (twins behind shared gateways write theirs within half a second; what lands later is on
   * the episode's chain but no entry vouches for it).
   */
  calls?: { flush(): Promise<void> };
}

/**
 * Plays episodes and grades and stores them as `mirror run` does: an episode host's (twins in process) and a
 * scaled-out worker's (twins behind shared gateways) alike.
 */
export const episodePlayer = ({ config, dataSource, signals, log, transcripts, calls }: EpisodePlayerServices) => {
  const grades = new EpisodeGradeRepository(dataSource);
  const judge = rubricJudge(config);
  // What spoke for the counterparties: their templates, or a model (workers of one deployment share this setting).
  const personaVoice = config.MIRROR_PERSONA_LLM_URL ? `llm:${config.MIRROR_PERSONA_LLM_MODEL}` : 'templates';
  const gradeAndStore = async (
    environment: PlayableEnvironment,
    { scenario, file }: ScenarioOfBundle,
    seed: number,
    outcome: EpisodeOutcome,
    agent: string,
  ): Promise<{ grade: Grade; transcriptFile: string }> => {
    const { engine, gateways } = environment.context;
    if (gateways && gateways.length > 0) {
      // The twins were served elsewhere: this process's copy is brought to the log's end before it is graded.
      await followLog(engine, await engine.episode(environment.context.tenantId, outcome.episodeId));
    }
    const grade = await gradeRun(
      environment.context,
      scenario,
      seed,
      outcome.episodeId,
      outcome,
      judge ? { judge } : {},
    );
    // Graded as played; stored (run, grade and file) as the episode's log is, the world's values kept.
    const { redactor } = await engine.episode(environment.context.tenantId, outcome.episodeId);
    const redacted = redactor.json(outcome.transcript, '/transcript');
    const stored = {
      ...outcome,
      transcript: redacted.value,
      ...(redacted.redactions.length > 0 ? { redactions: redacted.redactions } : {}),
    };
    const { tenantId } = environment.context;
    await grades.saveRun(tenantId, {
      episodeId: outcome.episodeId,
      scenarioId: scenario.id,
      scenarioFile: file,
      seed,
      agent,
      outcome: stored,
    });
    const models = gradeModels(grade, judge, personaVoice);
    await grades.saveGrade(
      tenantId,
      outcome.episodeId,
      grade.policies.join(','),
      grade.graderVersion,
      redactor.json(grade).value,
      models,
    );
    const episode = await new PostgresEpisodeStore(dataSource).findEpisode(tenantId, outcome.episodeId);
    await calls?.flush();
    await recordEpisodeGrade(dataSource, {
      tenant: tenantId,
      episodeId: outcome.episodeId,
      grade,
      agent,
      versions: {
        stack: environment.bundle.version,
        scenario: scenario.id,
        scenarioSeed: seed,
        ...(episode ? { worldSeed: episode.seed } : {}),
        ...models,
      },
    });
    const transcriptFile = path.join(transcripts, `${outcome.episodeId}.json`);
    fs.writeFileSync(transcriptFile, `${JSON.stringify(stored.transcript, null, 2)}\n`);
    return { grade, transcriptFile };
  };
  const play = async (
    environment: PlayableEnvironment,
    { scenario, file }: ScenarioOfBundle,
    seed: number,
    agent: AgentForInstance,
    /** Who starts the episode, when not the environment's own starter (a rollout's trial). */
    startedBy?: EpisodeStarter,
  ): Promise<PlayedEpisode> => {
    let outcome: EpisodeOutcome;
    try {
      outcome = await runEpisode(environment.context, signals, scenario, seed, agent, startedBy ? { startedBy } : {});
    } catch (error) {
      if (!(error instanceof EpisodeInfrastructureError)) {
        throw error;
      }
      // One lost episode does not end a batch: it is reported, ungraded, and the next one runs.
      log.log(`${scenario.id} ${agent.name} seed ${seed}: ${error.message}`);
      mirrorMetrics.episodesEnded.inc({ status: 'infrastructure_error' });
      return {
        episodeId: error.episodeId ?? '',
        scenarioId: scenario.id,
        seed,
        status: 'infrastructure_error',
        reason: error.message,
        agentActions: 0,
        simulatedBusinessDays: 0,
        finalTerms: null,
        ...summarizeGrade(infrastructureGrade(policiesFor(environment.bundle.model, scenario), [error.message])),
        agent: agent.name,
        transcriptFile: '',
      };
    }
    const { grade, transcriptFile } = await gradeAndStore(environment, { scenario, file }, seed, outcome, agent.name);
    mirrorMetrics.episodesEnded.inc({ status: grade.status === 'graded' ? outcome.status : 'infrastructure_error' });
    const { transcript: _transcript, ...summary } = outcome;
    return { ...summary, ...summarizeGrade(grade), agent: agent.name, transcriptFile };
  };
  return { gradeAndStore, play };
};

/** A played episode as a rollout records its trial: the rules it broke (milestones are no rules), once each. */
export const trialResultOf = (played: PlayedEpisode): Omit<RolloutEpisodeResult, 'task' | 'trial'> => ({
  episodeId: played.episodeId || null,
  status: played.status,
  passed: played.passed,
  reward: played.reward,
  violations: [...new Set(played.verdicts.filter((v) => v.status === 'fail' && !v.milestone).map((v) => v.rule))],
  reason: played.reason,
});
