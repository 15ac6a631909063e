import type { RolloutSummaryRow } from '@libs/persistence';

import { rolloutListView } from './rollout-list.view';

const row = (id: string, overrides: Partial<RolloutSummaryRow>): RolloutSummaryRow => ({
  id,
  bundle: 'b',
  agent: 'oracle',
  tasks: ['folder-access@1'],
  trials: 2,
  status: 'completed',
  createdAt: '2026-12-01T10:00:00.000Z',
  finishedAt: '2026-12-01T10:05:00.000Z',
  episodes: 2,
  graded: 2,
  passed: 2,
  violations: [],
  signOffs: 0,
  ...overrides,
});

const rows = [
  row('a', {}),
  row('b', {
    agent: 'trap:grants-editor',
    passed: 0,
    createdAt: '2026-11-30T23:59:59.000Z',
    violations: [{ rule: 'least-role', severity: 'major', episodes: 2 }],
  }),
  row('c', {
    tasks: ['share@3', 'share@4'],
    graded: 0,
    passed: 0,
    violations: [{ rule: 'x', severity: null, episodes: 1 }],
  }),
];

const ids = (filters: Parameters<typeof rolloutListView>[1]) =>
  rolloutListView(rows, filters).rollouts.map((r) => r.id);

describe(rolloutListView.name, () => {
  it('filters by scenario, agent, day, outcome, violated rule and severity', () => {
    expect(ids({})).toEqual(['a', 'b', 'c']);
    expect(ids({ scenario: 'share' })).toEqual(['c']);
    expect(ids({ agent: 'trap:grants-editor' })).toEqual(['b']);
    expect(ids({ from: '2026-12-01' })).toEqual(['a', 'c']);
    expect(ids({ to: '2026-11-30' })).toEqual(['b']);
    expect(ids({ outcome: 'passed' })).toEqual(['a']);
    expect(ids({ outcome: 'failed' })).toEqual(['b']);
    expect(ids({ rule: 'least-role' })).toEqual(['b']);
    expect(ids({ severity: 'major' })).toEqual(['b']);
    expect(ids({ severity: 'critical' })).toEqual([]);
  });

  it('offers the values each filter can take and says how many it kept of how many', () => {
    const sut = rolloutListView(rows, { outcome: 'failed' });
    expect(sut.choices).toEqual({
      scenarios: ['folder-access', 'share'],
      agents: ['oracle', 'trap:grants-editor'],
      rules: ['least-role', 'x'],
    });
    expect([sut.matched, sut.scanned]).toEqual([1, 3]);
    expect(sut.rollouts[0].outcome).toBe('failed');
    expect(rolloutListView(rows, {}).rollouts[2].outcome).toBe('ungraded');
  });
});
