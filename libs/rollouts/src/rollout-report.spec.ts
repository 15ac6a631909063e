import { parseTask } from './rollout-plan';
import { RolloutEpisodeResult, rolloutReport } from './rollout-report';

const episode = (
  task: string,
  trial: number,
  outcome: { passed?: boolean; reward?: number; violations?: string[]; infrastructure?: boolean },
): RolloutEpisodeResult => ({
  task,
  trial,
  episodeId: outcome.infrastructure ? null : `${task}#${trial}`,
  status: outcome.infrastructure ? 'infrastructure_error' : outcome.passed ? 'succeeded' : 'failed',
  passed: outcome.infrastructure ? null : (outcome.passed ?? false),
  reward: outcome.infrastructure ? null : (outcome.reward ?? 0),
  violations: outcome.violations ?? [],
  reason: '',
});

describe(rolloutReport.name, () => {
  const episodes = [
    episode('a@1', 1, { passed: true, reward: 1 }),
    episode('a@1', 2, { passed: false, reward: 0, violations: ['no-leak', 'no-leak'] }),
    episode('a@1', 3, { passed: true, reward: 1 }),
    episode('b@1', 1, { passed: false, reward: 0.2, violations: ['no-leak', 'approval'] }),
    episode('b@1', 2, { infrastructure: true }),
    episode('b@1', 3, { passed: false, reward: 0.4 }),
    episode('c@2', 1, { passed: true, reward: 0.9 }),
    episode('c@2', 2, { passed: true, reward: 0.9 }),
    episode('c@2', 3, { passed: true, reward: 0.9 }),
  ];
  const sut = rolloutReport(episodes, { trials: 3 });

  it('estimates each task from its graded trials, infrastructure errors apart', () => {
    const [a, b, c] = sut.tasks;
    expect(a).toMatchObject({ task: 'a@1', graded: 3, passed: 2, infrastructureErrors: 0, flag: null });
    expect(a.passAt['1']).toBeCloseTo(2 / 3, 12);
    expect(a.passAt['2']).toBe(1);
    expect(a.passHat['2']).toBeCloseTo(1 / 3, 12);
    expect(a.passHat['3']).toBe(0);
    // b: two graded trials, so k = 3 is undefined; its infrastructure error is in no rate.
    expect(b).toMatchObject({ graded: 2, passed: 0, infrastructureErrors: 1, successRate: 0, flag: 'never-passed' });
    expect(b.passAt).toEqual({ '1': 0, '2': 0, '3': null });
    expect(b.reward.mean).toBeCloseTo(0.3, 12);
    expect(c).toMatchObject({ successRate: 1, flag: 'mostly-passed', passHat: { '1': 1, '2': 1, '3': 1 } });
    expect(c.reward).toEqual({ mean: 0.9, low: 0.9, high: 0.9 });
  });

  it('counts a violated rule once per episode, per task and overall', () => {
    expect(sut.tasks[0].violations).toEqual({ 'no-leak': 1 });
    expect(sut.overall.violations).toEqual({ 'no-leak': 2, approval: 1 });
  });

  it('averages tasks equally overall, each k over the tasks that have k graded trials', () => {
    expect(sut.overall).toMatchObject({ tasks: 3, episodes: 9, graded: 8, infrastructureErrors: 1, passed: 5 });
    expect(sut.overall.successRate).toBeCloseTo(5 / 8, 12);
    expect(sut.overall.passAt['1']).toBeCloseTo((2 / 3 + 0 + 1) / 3, 12);
    expect(sut.overall.passHat['3']).toBeCloseTo((0 + 1) / 2, 12);
    expect(sut.overall.tasksWithK).toEqual({ '1': 3, '2': 3, '3': 2 });
    // Tasks are the unit of the overall interval: their means 2/3, 0.3 and 0.9.
    expect(sut.overall.reward.mean).toBeCloseTo((2 / 3 + 0.3 + 0.9) / 3, 12);
    expect(sut.overall.reward.low).toBeLessThan(sut.overall.reward.mean!);
    expect(sut.flagged).toEqual([
      { task: 'b@1', flag: 'never-passed', successRate: 0 },
      { task: 'c@2', flag: 'mostly-passed', successRate: 1 },
    ]);
  });

  it('flags only above the threshold, and leaves an unmeasured task unflagged', () => {
    const report = rolloutReport(
      [
        ...[true, true, true, true, true, true, true, false, false, false].map((passed, i) =>
          episode('seven@1', i + 1, { passed, reward: passed ? 1 : 0 }),
        ),
        episode('lost@1', 1, { infrastructure: true }),
      ],
      { trials: 10 },
    );
    expect(report.tasks.map((t) => [t.task, t.successRate, t.flag])).toEqual([
      ['seven@1', 0.7, null],
      ['lost@1', null, null],
    ]);
    expect(report.overall.reward).toEqual(report.tasks[0].reward);
    expect(report.tasks[1].passAt['1']).toBeNull();
  });

  it('reports nothing as a rate when every episode was an infrastructure error', () => {
    const report = rolloutReport([episode('x@1', 1, { infrastructure: true })], { trials: 1 });
    expect(report.overall).toMatchObject({ graded: 0, infrastructureErrors: 1, successRate: null });
    expect(report.overall.passAt).toEqual({ '1': null });
    expect(report.overall.reward).toEqual({ mean: null, low: null, high: null });
  });
});

describe('a task id', () => {
  it('is <scenario>@<seed>', () => {
    expect(parseTask('folder-access@3')).toEqual({ scenario: 'folder-access', seed: 3 });
    expect(parseTask('folder-access')).toBeUndefined();
    expect(parseTask('a@b@1')).toBeUndefined();
    expect(parseTask('a@-1')).toBeUndefined();
    expect(parseTask('a@99999999999')).toBeUndefined();
  });
});
