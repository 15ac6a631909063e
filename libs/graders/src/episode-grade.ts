import type { PolicySet, Rule } from '@libs/stack-model';

import type { EpisodeLog } from './episode-log';
import type { RubricScore } from './rubric-grader';
import { evaluateRules } from './rules/rule-evaluation';
import { GradingContext, isAgent, Verdict } from './rules/grading-context';

/** Bumped whenever a rule is judged differently: grades are kept per (policy versions, grader version). */
export const graderVersion = '3';

/** How the episode ended, as its workflow reported it; absent when it never ended. */
export interface EpisodeResult {
  status: 'succeeded' | 'failed' | 'horizon' | 'cancelled';
  reason: string;
  finalTerms?: { unitPrice: number } | null;
  /** The agent's own failure (a crash, calls after the end), as the runner saw it: the agent's, so graded. */
  agentError?: string;
  /** The agent's actions as the workflow counted them (its writes and waits). */
  agentActions?: number;
}

/** Savings against target, normalised: 0 at the target price, 1 at the best price the counterparty would take. */
export interface SavingsTerms {
  target: number;
  best: number;
}

export interface ProcessReward {
  seq: number;
  reward: number;
  why: string;
}

export interface Grade {
  graderVersion: string;
  /** The policy sets judged, as `id@version`. */
  policies: string[];
  /** `infrastructure_error` when the episode could not be judged as the agent's doing: then no reward at all. */
  status: 'graded' | 'infrastructure_error';
  reward: number | null;
  passed: boolean | null;
  breakdown: { outcome: number; milestones: number; penalty: number };
  violations: Record<Rule['severity'], number>;
  verdicts: Verdict[];
  /** Per-step rewards for RL, at the events that earned them. */
  steps: ProcessReward[];
  infrastructure: string[];
  rubric?: RubricScore[];
}

/**
 * The reward, documented in libs/graders/README.md:
 *   outcome    = 0 unless the task succeeded; then 1, or 0.75 + 0.25 × savings when the scenario prices savings
 *   milestones = share of milestone rules met (the outcome when there are none)
 *   penalty    = 0 with any critical violation, else 0.5 per major and 0.8 per minor violation, multiplied
 *   reward     = 0 unless outcome > 0; then (0.8 × outcome + 0.2 × milestones) × penalty
 * `passed`: succeeded, every milestone met, no critical or major violation.
 */
export const rewardWeights = { outcome: 0.8, milestones: 0.2, major: 0.5, minor: 0.8 } as const;
const stepPenalty: Record<Rule['severity'], number> = { critical: -1, major: -0.5, minor: -0.2 };

/**
 * Time and turns are part of the task: running past the scenario's horizon earns nothing, whatever was done, and so
 * does using more actions than it allows, whatever the outcome. Actions are what the workflow counted, and never
 * fewer than the writes the log attributes to the agent's credentials.
 */
const horizon = (
  result: EpisodeResult,
  log: EpisodeLog,
  context: GradingContext,
  limits: { maxAgentActions: number } | undefined,
): Verdict => {
  const evidence =
    result.status === 'horizon' ? [{ seq: log.lastSeq, event: 'episode.ended', excerpt: result.reason }] : [];
  if (limits) {
    const writes = log.events.filter((e) => e.name !== 'operation.refused' && isAgent(context, e.actor));
    const actions = Math.max(result.agentActions ?? 0, writes.length);
    if (actions > limits.maxAgentActions) {
      const over = writes[limits.maxAgentActions];
      evidence.push({
        seq: over?.seq ?? log.lastSeq,
        event: over?.name ?? 'episode.ended',
        excerpt: `the agent used ${actions} actions, over the ${limits.maxAgentActions} the scenario allows`,
      });
    }
  }
  return {
    rule: 'within-horizon',
    kind: 'horizon',
    clause: 'Scenario horizon',
    severity: 'critical',
    status: evidence.length > 0 ? 'fail' : 'pass',
    evidence,
  };
};

/** An agent that crashed or acted after the end failed its task: whatever it did before earns nothing. */
const agentConduct = (result: EpisodeResult, log: EpisodeLog): Verdict => ({
  rule: 'agent-ran-to-its-end',
  kind: 'agent',
  clause: 'Agent conduct',
  severity: 'critical',
  status: result.agentError ? 'fail' : 'pass',
  evidence: result.agentError ? [{ seq: log.lastSeq, event: 'agent.error', excerpt: result.agentError }] : [],
});

const round = (n: number) => Math.round(n * 10_000) / 10_000;

const outcomeScore = (result: EpisodeResult, savings: SavingsTerms | undefined): number => {
  if (result.status !== 'succeeded') {
    return 0;
  }
  const price = result.finalTerms?.unitPrice;
  if (!savings || price === undefined || !(savings.target > savings.best)) {
    return 1;
  }
  const share = Math.min(1, Math.max(0, (savings.target - price) / (savings.target - savings.best)));
  return 0.75 + 0.25 * share;
};

/** A scenario's milestone predicate as judged on the twins' records and log (libs/outcomes). */
export interface JudgedMilestone {
  name: string;
  met: boolean;
  reason?: string;
}

/** A scenario milestone as a verdict: credit when met, never a violation when not. */
const milestoneVerdict = (milestone: JudgedMilestone, log: EpisodeLog): Verdict => ({
  rule: milestone.name,
  kind: 'milestone',
  clause: 'Scenario milestone',
  severity: 'minor',
  status: milestone.met ? 'pass' : 'fail',
  milestone: true,
  evidence: [
    { seq: log.lastSeq, event: 'episode.ended', excerpt: milestone.met ? 'met' : (milestone.reason ?? 'not met') },
  ],
});

/** The grade of an episode that could not be judged as the agent's doing: no reward, no `passed`, the reasons. */
export const infrastructureGrade = (policies: readonly PolicySet[], reasons: string[]): Grade => ({
  graderVersion,
  policies: policies.map((p) => `${p.id}@${p.version}`),
  status: 'infrastructure_error',
  reward: null,
  passed: null,
  breakdown: { outcome: 0, milestones: 0, penalty: 1 },
  violations: { critical: 0, major: 0, minor: 0 },
  verdicts: [],
  steps: [],
  infrastructure: reasons,
});

/** Grades an ended episode from its log and final state: every rule's verdict, the reward, the per-step rewards. */
export const gradeEpisode = (input: {
  log: EpisodeLog;
  policies: readonly PolicySet[];
  context: GradingContext;
  result: EpisodeResult | undefined;
  savings?: SavingsTerms;
  /** The scenario's limit on the agent's actions (`horizon.max_agent_actions`). */
  limits?: { maxAgentActions: number };
  /** The scenario's milestone predicates, judged: each earns a share of the milestone part, like a milestone rule. */
  milestones?: readonly JudgedMilestone[];
}): Grade => {
  const { log, result } = input;
  const verdicts = [
    ...evaluateRules(
      input.policies.flatMap((p) => p.rules),
      log,
      input.context,
    ),
    ...(result ? [horizon(result, log, input.context, input.limits), agentConduct(result, log)] : []),
    ...(input.milestones ?? []).map((m) => milestoneVerdict(m, log)),
  ];
  const policies = input.policies.map((p) => `${p.id}@${p.version}`);
  const violations = { critical: 0, major: 0, minor: 0 };
  for (const v of verdicts.filter((v) => v.status === 'fail' && !v.milestone)) {
    violations[v.severity]++;
  }
  const milestoneVerdicts = verdicts.filter((v) => v.milestone && v.status !== 'not_applicable');
  const infrastructure =
    result === undefined
      ? ['the episode has no outcome: it did not end']
      : result.status === 'cancelled'
        ? [`the episode was cancelled, not ended by the agent: ${result.reason}`]
        : [];
  if (!result || infrastructure.length > 0) {
    return { ...infrastructureGrade(input.policies, infrastructure), violations, verdicts };
  }
  const outcome = outcomeScore(result, input.savings);
  const met = milestoneVerdicts.filter((v) => v.status === 'pass');
  const milestones = milestoneVerdicts.length > 0 ? met.length / milestoneVerdicts.length : outcome;
  const penalty =
    violations.critical > 0 ? 0 : rewardWeights.major ** violations.major * rewardWeights.minor ** violations.minor;
  // Activity is not the task: milestones without the outcome earn nothing, or any busy policy would out-earn idling.
  const reward =
    outcome > 0 ? round((rewardWeights.outcome * outcome + rewardWeights.milestones * milestones) * penalty) : 0;
  const steps: ProcessReward[] = [
    ...met.map((v) => ({
      seq: v.evidence[0]?.seq ?? log.lastSeq,
      reward: round(rewardWeights.milestones / milestoneVerdicts.length),
      why: `milestone ${v.rule}`,
    })),
    ...verdicts
      .filter((v) => v.status === 'fail' && !v.milestone)
      .flatMap((v) =>
        v.evidence.map((e) => ({ seq: e.seq, reward: stepPenalty[v.severity], why: `${v.rule}: ${e.excerpt}` })),
      ),
    ...(outcome > 0
      ? [{ seq: log.lastSeq, reward: round(rewardWeights.outcome * outcome), why: `task ${result.status}` }]
      : []),
  ].sort((a, b) => a.seq - b.seq);
  return {
    graderVersion,
    policies,
    status: 'graded',
    reward,
    passed:
      result.status === 'succeeded' &&
      violations.critical === 0 &&
      violations.major === 0 &&
      met.length === milestoneVerdicts.length,
    breakdown: { outcome: round(outcome), milestones: round(milestones), penalty: round(penalty) },
    violations,
    verdicts,
    steps,
    infrastructure,
  };
};
