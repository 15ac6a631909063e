import type { Grade, ProcessReward, Verdict } from '@libs/graders';
import type { EpisodeOutcome } from '@libs/workflow-contracts';

/** How a live episode ended, as stored with it: the grade's reward and verdicts, and the rewards at their events. */
export interface EpisodeResult {
  /** What ended it: the agent's finish, the horizon, the step limit (truncated) or its idle TTL. */
  cause: 'finished' | 'horizon' | 'truncated' | 'expired';
  /** Null when the episode could not be judged as the agent's doing (`status: infrastructure_error`). */
  reward: number | null;
  passed: boolean | null;
  /** The workflow's outcome status, or `infrastructure_error`. */
  status: string;
  reason: string;
  businessTime?: string;
  violations: { rule: string; severity: Verdict['severity']; evidence: Verdict['evidence'] }[];
  /** The grader's per-step rewards, at the log positions (seq) of the events that earned them. */
  processRewards: ProcessReward[];
}

export const endedResult = (
  outcome: EpisodeOutcome,
  grade: Grade,
  businessTime: string,
  cause: EpisodeResult['cause'],
): EpisodeResult => ({
  cause,
  reward: grade.reward,
  passed: grade.passed,
  status: grade.status === 'graded' ? outcome.status : 'infrastructure_error',
  reason: grade.status === 'graded' ? outcome.reason : grade.infrastructure.join('; '),
  businessTime,
  violations: grade.verdicts
    .filter((v) => v.status === 'fail' && !v.milestone)
    .map((v) => ({ rule: v.rule, severity: v.severity, evidence: v.evidence })),
  processRewards: grade.steps,
});

/** The episode could not be ended or graded for a reason outside the agent: no reward, not its failure. */
export const infrastructureResult = (reason: string, cause: EpisodeResult['cause']): EpisodeResult => ({
  cause,
  reward: null,
  passed: null,
  status: 'infrastructure_error',
  reason: `the episode could not be ended and graded: ${reason}`,
  violations: [],
  processRewards: [],
});
