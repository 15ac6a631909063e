import { EpisodeLog, gradeEpisode, GradingContext } from '.';

const context: GradingContext = {
  hidden: {},
  values: {},
  internalDomain: 'clinic.example',
  approvalLimits: {},
  agent: ['E0000', 'agent@clinic.example', 'U0'],
  people: [],
  services: {},
  records: () => [],
  businessDaysBetween: () => 0,
};
const log: EpisodeLog = { events: [], changes: [], lastSeq: 12 };
const grade = (status: 'succeeded' | 'failed', met: boolean[]) =>
  gradeEpisode({
    log,
    policies: [],
    context,
    result: { status, reason: 'judged' },
    milestones: met.map((m, i) => ({
      name: `step_${i}`,
      met: m,
      ...(m ? {} : { reason: 'the predicate does not hold' }),
    })),
  });

/** A scenario's milestone predicates, judged elsewhere (libs/outcomes), weigh in the reward like milestone rules. */
describe('scenario milestones in the grade', () => {
  it('gives each met milestone its share of the milestone part, and a missed one no violation', () => {
    const sut = grade('succeeded', [true, false]);
    // 0.8 × 1 + 0.2 × 1/2
    expect(sut).toMatchObject({ reward: 0.9, passed: false, breakdown: { milestones: 0.5 }, violations: { minor: 0 } });
    expect(sut.verdicts.filter((v) => v.kind === 'milestone')).toEqual([
      expect.objectContaining({ rule: 'step_0', kind: 'milestone', status: 'pass', milestone: true }),
      expect.objectContaining({
        rule: 'step_1',
        status: 'fail',
        evidence: [expect.objectContaining({ excerpt: 'the predicate does not hold' })],
      }),
    ]);
    expect(sut.steps.map((s) => s.why)).toEqual(['milestone step_0', 'task succeeded']);
  });

  it('passes only with every milestone met', () => {
    expect(grade('succeeded', [true, true])).toMatchObject({ reward: 1, passed: true });
  });

  it('gives milestones nothing without the outcome', () => {
    expect(grade('failed', [true, true])).toMatchObject({ reward: 0, passed: false, breakdown: { milestones: 1 } });
  });
});
