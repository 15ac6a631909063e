import type { Grade } from '@libs/graders';
import type { BoundClosure, SignOffRow, StoredGrade, StoredRollout } from '@libs/persistence';
import { RolloutEpisodeResult, rolloutReport } from '@libs/rollouts';

import type { EvidenceRef, HistogramBin, KValue, RolloutView, RuleViolations } from './review-view-models';
import { PolicyRuleText, ruleText } from './policy-rules';

/** Ten bins over the reward's range, 0 to 1; the last bin holds 1 itself. */
export const rewardHistogram = (rewards: readonly number[], bins = 10): HistogramBin[] =>
  Array.from({ length: bins }, (_, i) => ({
    from: i / bins,
    to: (i + 1) / bins,
    count: rewards.filter((r) => Math.min(bins - 1, Math.floor(r * bins)) === i).length,
  }));

const kValues = (byK: Record<string, number | null>): KValue[] =>
  Object.entries(byK)
    .map(([k, value]) => ({ k: Number(k), value }))
    .sort((a, b) => a.k - b.k);

const evidencePerRule = 5;

export interface RolloutMaterial {
  rollout: StoredRollout;
  episodes: readonly RolloutEpisodeResult[];
  /** The latest grade of each episode, by episode id. */
  grades: ReadonlyMap<string, StoredGrade<Grade>>;
  signOffs: readonly SignOffRow[];
  /** The rules of the stack version's policies, by rule id. */
  rules: ReadonlyMap<string, PolicyRuleText>;
  /** The rollout's `rollout.closed` entry, when it has one: what a sign-off binds to. */
  closure?: BoundClosure | null;
}

/**
 * A rollout as a reviewer reads it: pass@k and pass^k (from its stored report, or computed from the trials recorded so
 * far while it runs), the rewards' distribution, and each violated rule with its clause and the first evidence.
 */
export const rolloutView = ({
  rollout,
  episodes,
  grades,
  signOffs,
  rules,
  closure = null,
}: RolloutMaterial): RolloutView => {
  const report = rollout.report ?? rolloutReport(episodes, { trials: rollout.trials });
  const rewards = episodes.flatMap((e) => (e.reward === null || e.passed === null ? [] : [e.reward]));
  const tallies = new Map<
    string,
    { episodes: number; evidence: EvidenceRef[]; severity: string | null; clause: string | null }
  >();
  for (const episode of episodes) {
    const grade = episode.episodeId ? grades.get(episode.episodeId)?.grade : undefined;
    for (const rule of episode.violations) {
      const verdict = grade?.verdicts.find((v) => v.rule === rule);
      const tally = tallies.get(rule) ?? { episodes: 0, evidence: [], severity: null, clause: null };
      tally.episodes += 1;
      tally.severity ??= verdict?.severity ?? null;
      tally.clause ??= verdict?.clause ?? null;
      for (const item of verdict?.evidence ?? []) {
        if (tally.evidence.length < evidencePerRule) {
          tally.evidence.push({ episodeId: episode.episodeId, task: episode.task, trial: episode.trial, ...item });
        }
      }
      tallies.set(rule, tally);
    }
  }
  const graded = report.overall.graded;
  const violations: RuleViolations[] = [...tallies.entries()]
    .map(([rule, tally]) => {
      const text = ruleText(rules, rule);
      return {
        rule,
        severity: text?.severity ?? (tally.severity as RuleViolations['severity']),
        clause: text?.clause ?? tally.clause,
        description: text?.description ?? null,
        episodes: tally.episodes,
        share: graded > 0 ? tally.episodes / graded : null,
        evidence: tally.evidence,
      };
    })
    .sort((a, b) => b.episodes - a.episodes || a.rule.localeCompare(b.rule));
  return {
    id: rollout.id,
    bundle: rollout.bundle,
    agent: rollout.agent,
    stackVersion: rollout.stackVersion,
    status: rollout.status,
    createdAt: rollout.createdAt,
    finishedAt: rollout.finishedAt,
    trials: rollout.trials,
    tasks: rollout.tasks,
    episodes: report.overall.episodes,
    graded,
    passed: report.overall.passed,
    passAt: kValues(report.overall.passAt),
    passHat: kValues(report.overall.passHat),
    reward: {
      mean: report.overall.reward.mean,
      low: report.overall.reward.low,
      high: report.overall.reward.high,
      confidence: report.confidence,
      histogram: rewardHistogram(rewards),
    },
    violations,
    taskRows: report.tasks.map((t) => ({
      task: t.task,
      episodes: t.episodes,
      graded: t.graded,
      passed: t.passed,
      successRate: t.successRate,
      meanReward: t.reward.mean,
      flag: t.flag,
    })),
    trialRows: episodes.map((e) => ({ ...e, violations: [...e.violations] })),
    signOffs: signOffs.map(({ rolloutId: _rolloutId, ...s }) => s),
    closure,
  };
};
