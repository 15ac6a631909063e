import type { RunnerContext } from '@libs/episode-runs';
import type { Scenario } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-ingestion';
import type { EpisodeOutcome } from '@libs/workflow-contracts';

import type { summarizeGrade } from './grade-summary';

/** A bundle the host serves: its id (`mirror up` uses the bundle's folder name), folder, model and stored version. */
export interface HostedBundle {
  id: string;
  path: string;
  model: StackModel;
  version: string;
}

/** One bundle's episodes as the runner starts them: its stack version stored, its files readable. */
export interface HostedEnvironment {
  bundle: HostedBundle;
  context: RunnerContext;
}

/** A scenario of a bundle with the file it came from (the run records it, so the episode can be graded again). */
export interface ScenarioOfBundle {
  scenario: Scenario;
  file: string;
}

/** One episode as `run` and `check` report it: the outcome without its transcript, the grade, where the rest is. */
export type PlayedEpisode = Omit<EpisodeOutcome, 'transcript' | 'status'> &
  ReturnType<typeof summarizeGrade> & {
    /** `infrastructure_error`: the episode could not run or end (no reward, not the agent's failure). */
    status: EpisodeOutcome['status'] | 'infrastructure_error';
    agent: string;
    transcriptFile: string;
  };
