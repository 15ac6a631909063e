import { passAtK, passHatK } from './pass-at-k';
import { meanInterval } from './student-t';

/** One played trial of a task, as the rollout recorded it. */
export interface RolloutEpisodeResult {
  /** `<scenario>@<seed>`: the task instance; its trials replay the same instance. */
  task: string;
  trial: number;
  episodeId: string | null;
  /** The episode's outcome (`succeeded`, `failed`, …) or `infrastructure_error` when Mirror could not run or end it. */
  status: string;
  passed: boolean | null;
  reward: number | null;
  /** Rules the episode violated (each once per episode; milestones are not violations). */
  violations: string[];
  reason: string;
}

export interface RolloutReportOptions {
  /** The k of pass@k and pass^k is every k from 1 to this (the trials asked for per task). */
  trials: number;
  /** Of the reward's interval (default 0.95). */
  confidence?: number;
  /** Tasks passed more often than this (a fraction) are flagged as nearly solved (default 0.7). */
  highSuccessAbove?: number;
}

/** The mean reward and its Student t interval (clamped to the reward's range, 0 to 1); null bounds under 2 values. */
export interface RewardEstimate {
  mean: number | null;
  low: number | null;
  high: number | null;
}

/** Why a task stands out for training: it never passed (no signal to learn from), or it is nearly solved. */
export type TaskFlag = 'never-passed' | 'mostly-passed';

interface Tallies {
  episodes: number;
  /** Episodes with a grade: the denominators of every rate below. */
  graded: number;
  /** Ungraded, excluded from every rate and mean, reported here. */
  infrastructureErrors: number;
  passed: number;
  successRate: number | null;
  /** By k, from 1 to the trials asked for: null where fewer graded trials than k exist. */
  passAt: Record<string, number | null>;
  passHat: Record<string, number | null>;
  reward: RewardEstimate;
  /** Rule → the number of graded episodes that violated it. */
  violations: Record<string, number>;
}

export interface TaskReport extends Tallies {
  task: string;
  flag: TaskFlag | null;
}

export interface RolloutReport {
  trials: number;
  confidence: number;
  interval: 'student-t';
  overall: Tallies & {
    tasks: number;
    /** Tasks whose pass@k / pass^k entered the overall mean, by k (those with at least k graded trials). */
    tasksWithK: Record<string, number>;
  };
  tasks: TaskReport[];
  flagged: { task: string; flag: TaskFlag; successRate: number }[];
}

const isInfrastructureError = (e: RolloutEpisodeResult) => e.status === 'infrastructure_error';

const mean = (values: readonly number[]): number | null =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;

const rewardRange = { min: 0, max: 1 };

const estimate = (values: readonly number[], confidence: number): RewardEstimate => {
  const interval = meanInterval(values, confidence, rewardRange);
  return { mean: interval?.mean ?? null, low: interval?.low ?? null, high: interval?.high ?? null };
};

const countViolations = (episodes: readonly RolloutEpisodeResult[]): Record<string, number> => {
  const counts = new Map<string, number>();
  for (const e of episodes) {
    for (const rule of new Set(e.violations)) {
      counts.set(rule, (counts.get(rule) ?? 0) + 1);
    }
  }
  return Object.fromEntries([...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
};

const ks = (trials: number): number[] => Array.from({ length: trials }, (_, i) => i + 1);

const taskReport = (
  task: string,
  episodes: readonly RolloutEpisodeResult[],
  options: Required<RolloutReportOptions>,
): TaskReport => {
  const graded = episodes.filter((e) => !isInfrastructureError(e));
  const passed = graded.filter((e) => e.passed === true).length;
  const successRate = graded.length > 0 ? passed / graded.length : null;
  const flag: TaskFlag | null =
    successRate === null
      ? null
      : successRate === 0
        ? 'never-passed'
        : successRate > options.highSuccessAbove
          ? 'mostly-passed'
          : null;
  return {
    task,
    episodes: episodes.length,
    graded: graded.length,
    infrastructureErrors: episodes.length - graded.length,
    passed,
    successRate,
    passAt: Object.fromEntries(
      ks(options.trials).map((k) => [k, graded.length > 0 ? passAtK(graded.length, passed, k) : null]),
    ),
    passHat: Object.fromEntries(
      ks(options.trials).map((k) => [k, graded.length > 0 ? passHatK(graded.length, passed, k) : null]),
    ),
    reward: estimate(
      graded.map((e) => e.reward ?? 0),
      options.confidence,
    ),
    violations: countViolations(graded),
    flag,
  };
};

/**
 * The rollout's report: per task, then overall. Overall pass@k and pass^k are the mean over tasks of each task's
 * estimate (every task weighs the same, as in τ-bench), over the tasks with at least k graded trials. The overall
 * reward interval treats tasks as the sampled unit (a t interval over the tasks' mean rewards), because trials of one
 * task are not independent draws; with a single task it is that task's interval over its trials.
 */
export const rolloutReport = (
  episodes: readonly RolloutEpisodeResult[],
  options: RolloutReportOptions,
): RolloutReport => {
  const settled: Required<RolloutReportOptions> = { confidence: 0.95, highSuccessAbove: 0.7, ...options };
  if (!Number.isInteger(settled.trials) || settled.trials < 1) {
    throw new RangeError(`trials must be a positive integer, not ${settled.trials}`);
  }
  const byTask = new Map<string, RolloutEpisodeResult[]>();
  for (const e of episodes) {
    byTask.set(e.task, [...(byTask.get(e.task) ?? []), e]);
  }
  const tasks = [...byTask].map(([task, mine]) => taskReport(task, mine, settled));
  const graded = episodes.filter((e) => !isInfrastructureError(e));
  const passed = graded.filter((e) => e.passed === true).length;
  const measured = tasks.filter((t) => t.reward.mean !== null);
  const overallK = (pick: (t: TaskReport) => Record<string, number | null>) =>
    Object.fromEntries(
      ks(settled.trials).map((k) => [k, mean(tasks.map((t) => pick(t)[k]).filter((v): v is number => v !== null))]),
    );
  return {
    trials: settled.trials,
    confidence: settled.confidence,
    interval: 'student-t',
    overall: {
      tasks: tasks.length,
      episodes: episodes.length,
      graded: graded.length,
      infrastructureErrors: episodes.length - graded.length,
      passed,
      successRate: graded.length > 0 ? passed / graded.length : null,
      passAt: overallK((t) => t.passAt),
      passHat: overallK((t) => t.passHat),
      tasksWithK: Object.fromEntries(ks(settled.trials).map((k) => [k, tasks.filter((t) => t.graded >= k).length])),
      reward:
        measured.length === 1
          ? measured[0].reward
          : estimate(
              measured.map((t) => t.reward.mean as number),
              settled.confidence,
            ),
      violations: countViolations(graded),
    },
    tasks,
    flagged: tasks.flatMap((t) =>
      t.flag !== null && t.successRate !== null ? [{ task: t.task, flag: t.flag, successRate: t.successRate }] : [],
    ),
  };
};
