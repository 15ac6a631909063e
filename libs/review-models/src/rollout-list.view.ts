import type { RolloutSummaryRow } from '@libs/persistence';
import { parseTask } from '@libs/rollouts';

import { RolloutFilters, Severity, severities } from './rollout-filters';
import type { RolloutListItem, RolloutListView } from './review-view-models';

const scenarioOf = (task: string) => parseTask(task)?.scenario ?? task;

const isSeverity = (value: string | null): value is Severity =>
  value !== null && (severities as readonly string[]).includes(value);

export const toListItem = (row: RolloutSummaryRow): RolloutListItem => ({
  id: row.id,
  bundle: row.bundle,
  agent: row.agent,
  scenarios: [...new Set(row.tasks.map(scenarioOf))].sort(),
  trials: row.trials,
  status: row.status,
  createdAt: row.createdAt,
  finishedAt: row.finishedAt,
  episodes: row.episodes,
  graded: row.graded,
  passed: row.passed,
  outcome: row.graded === 0 ? 'ungraded' : row.passed === row.graded ? 'passed' : 'failed',
  violations: row.violations.map((v) => ({
    rule: v.rule,
    severity: isSeverity(v.severity) ? v.severity : null,
    episodes: v.episodes,
  })),
  signOffs: row.signOffs,
});

const matches = (item: RolloutListItem, filters: RolloutFilters): boolean => {
  const day = item.createdAt.slice(0, 10);
  return (
    (filters.scenario === undefined || item.scenarios.includes(filters.scenario)) &&
    (filters.agent === undefined || item.agent === filters.agent) &&
    (filters.from === undefined || day >= filters.from) &&
    (filters.to === undefined || day <= filters.to) &&
    (filters.outcome === undefined || item.outcome === filters.outcome) &&
    (filters.rule === undefined || item.violations.some((v) => v.rule === filters.rule)) &&
    (filters.severity === undefined || item.violations.some((v) => v.severity === filters.severity))
  );
};

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

/** The rollouts the filters keep, newest first, and the values each filter can take among those scanned. */
export const rolloutListView = (rows: readonly RolloutSummaryRow[], filters: RolloutFilters): RolloutListView => {
  const items = rows.map(toListItem);
  const kept = items.filter((item) => matches(item, filters));
  return {
    filters,
    rollouts: kept,
    matched: kept.length,
    scanned: items.length,
    choices: {
      scenarios: sorted(items.flatMap((i) => i.scenarios)),
      agents: sorted(items.map((i) => i.agent)),
      rules: sorted(items.flatMap((i) => i.violations.map((v) => v.rule))),
    },
  };
};
