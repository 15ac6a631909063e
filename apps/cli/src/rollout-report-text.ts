import type { RolloutPlan, RolloutReport, RewardEstimate } from '@libs/rollouts';
import { table } from '@cli/episode-batch';

const percent = (value: number | null): string => (value === null ? '-' : `${Math.round(value * 100)} %`);
const fixed = (value: number | null): string => (value === null ? '-' : value.toFixed(2));
const reward = (r: RewardEstimate): string =>
  r.mean === null ? '-' : r.low === null ? fixed(r.mean) : `${fixed(r.mean)} [${fixed(r.low)}, ${fixed(r.high)}]`;

/** The report as `mirror rollout` prints it: tasks and overall, violations by rule, flagged tasks, where it is kept. */
export const rolloutReportText = (plan: RolloutPlan, report: RolloutReport): string => {
  const k = report.trials;
  const ks = k === 1 ? ['1'] : ['1', String(k)];
  const headings = [
    'task',
    'trials',
    'passed',
    ...ks.map((n) => `pass@${n}`),
    ...(k === 1 ? [] : [`pass^${k}`]),
    `mean reward [${Math.round(report.confidence * 100)} % CI]`,
    'infra errors',
    'flag',
  ];
  const cells = (
    name: string,
    t: Pick<
      RolloutReport['overall'],
      'episodes' | 'graded' | 'passed' | 'passAt' | 'passHat' | 'reward' | 'infrastructureErrors'
    >,
    flag: string,
  ) => [
    name,
    String(t.episodes),
    `${t.passed}/${t.graded}`,
    ...ks.map((n) => percent(t.passAt[n])),
    ...(k === 1 ? [] : [percent(t.passHat[String(k)])]),
    reward(t.reward),
    String(t.infrastructureErrors),
    flag,
  ];
  const rules = Object.entries(report.overall.violations);
  return [
    table([
      headings,
      ...report.tasks.map((t) => cells(t.task, t, t.flag ?? '')),
      cells(`overall (${report.overall.tasks} task${report.overall.tasks === 1 ? '' : 's'})`, report.overall, ''),
    ]),
    rules.length === 0
      ? 'no rule violated\n'
      : `\n${table([['rule', 'episodes violating it'], ...rules.map(([rule, n]) => [rule, String(n)])])}`,
    ...report.flagged.map((f) =>
      f.flag === 'never-passed'
        ? `flagged ${f.task}: never passed (no signal to learn from, or a broken task)\n`
        : `flagged ${f.task}: passed ${percent(f.successRate)} of its trials (above 70 %: nearly solved)\n`,
    ),
    `rollout ${plan.id}: ${report.overall.episodes} trials, ${report.overall.infrastructureErrors} infrastructure error${report.overall.infrastructureErrors === 1 ? '' : 's'} (not graded, in no rate or mean); stored, served at GET /v1/rollouts/${plan.id}\n`,
  ].join('');
};
