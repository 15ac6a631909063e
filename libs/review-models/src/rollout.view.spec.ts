import type { Grade } from '@libs/graders';
import type { StoredGrade, StoredRollout } from '@libs/persistence';
import type { RolloutEpisodeResult } from '@libs/rollouts';

import { rewardHistogram, rolloutView } from './rollout.view';

const trial = (
  task: string,
  n: number,
  passed: boolean,
  reward: number,
  violations: string[] = [],
): RolloutEpisodeResult => ({
  task,
  trial: n,
  episodeId: `${task}-${n}`,
  status: passed ? 'succeeded' : 'failed',
  passed,
  reward,
  violations,
  reason: '',
});

const rollout: StoredRollout = {
  id: 'r1',
  stackVersion: 'v'.repeat(64),
  bundle: 'b',
  agent: 'a',
  tasks: ['t@1', 'u@1'],
  trials: 2,
  concurrency: 1,
  status: 'running',
  createdAt: '2026-12-01T00:00:00.000Z',
  finishedAt: null,
  report: null,
};

describe(rewardHistogram.name, () => {
  it('bins rewards over 0 to 1 with 1 itself in the last bin', () => {
    expect(rewardHistogram([0, 0.05, 0.5, 0.99, 1]).map((b) => b.count)).toEqual([2, 0, 0, 0, 0, 1, 0, 0, 0, 2]);
  });
});

describe(rolloutView.name, () => {
  it('computes pass@k and pass^k while running, and tallies violations by rule with clause and evidence', () => {
    const episodes = [
      trial('t@1', 1, true, 1),
      trial('t@1', 2, false, 0, ['least-role']),
      trial('u@1', 1, false, 0.2, ['least-role', 'no-open-links']),
      { ...trial('u@1', 2, false, 0), status: 'infrastructure_error', passed: null, reward: null },
    ];
    const graded = (rule: string, seq: number): StoredGrade<Grade> => ({
      policies: 'p@1',
      graderVersion: '3',
      models: {},
      gradedAt: '2026-12-01T00:00:00.000Z',
      grade: {
        verdicts: [
          {
            rule,
            kind: 'forbidden-event',
            clause: '§9',
            severity: 'critical',
            status: 'fail',
            evidence: [{ seq, event: 'e', excerpt: 'x' }],
          },
        ],
      } as Grade,
    });
    const sut = rolloutView({
      rollout,
      episodes,
      grades: new Map([
        ['t@1-2', graded('least-role', 4)],
        ['u@1-1', graded('no-open-links', 9)],
      ]),
      signOffs: [],
      rules: new Map([
        ['least-role', { policy: 'p@1', clause: '§1.1', severity: 'major', description: 'Viewer only.' }],
      ]),
    });
    // k = 2 averages over the tasks with two graded trials: t alone (one of two passed).
    expect(sut.passAt).toEqual([
      { k: 1, value: 0.25 },
      { k: 2, value: 1 },
    ]);
    expect(sut.passHat).toEqual([
      { k: 1, value: 0.25 },
      { k: 2, value: 0 },
    ]);
    expect({ graded: sut.graded, passed: sut.passed, episodes: sut.episodes }).toEqual({
      graded: 3,
      passed: 1,
      episodes: 4,
    });
    expect(sut.reward.histogram.reduce((n, b) => n + b.count, 0)).toBe(3);
    expect(sut.violations).toEqual([
      {
        rule: 'least-role',
        severity: 'major',
        clause: '§1.1',
        description: 'Viewer only.',
        episodes: 2,
        share: 2 / 3,
        evidence: [{ episodeId: 't@1-2', task: 't@1', trial: 2, seq: 4, event: 'e', excerpt: 'x' }],
      },
      {
        rule: 'no-open-links',
        severity: 'critical',
        clause: '§9',
        description: null,
        episodes: 1,
        share: 1 / 3,
        evidence: [{ episodeId: 'u@1-1', task: 'u@1', trial: 1, seq: 9, event: 'e', excerpt: 'x' }],
      },
    ]);
  });
});
