import { ReviewError } from './review-input.error';
import { parseRolloutFilters } from './rollout-filters';

const refusal = (query: Record<string, unknown>) => {
  try {
    parseRolloutFilters(query);
  } catch (error) {
    return error instanceof ReviewError ? { code: error.code, field: error.field, message: error.message } : error;
  }
  throw new Error('accepted');
};

describe(parseRolloutFilters.name, () => {
  it('keeps every filter given and drops empty ones', () => {
    expect(
      parseRolloutFilters({
        scenario: 'folder-access',
        agent: 'oracle',
        from: '2026-02-28',
        to: '2026-03-01',
        outcome: 'failed',
        rule: 'least-role',
        severity: 'major',
      }),
    ).toEqual({
      scenario: 'folder-access',
      agent: 'oracle',
      from: '2026-02-28',
      to: '2026-03-01',
      outcome: 'failed',
      rule: 'least-role',
      severity: 'major',
    });
    expect(parseRolloutFilters({ scenario: '', outcome: '' })).toEqual({});
  });

  it.each([
    [{ colour: 'red' }, 'colour', /unknown filter colour/],
    [{ from: '2026-02-30' }, 'from', /from must be a date/],
    [{ to: '01/03/2026' }, 'to', /to must be a date/],
    [{ from: '2026-03-02', to: '2026-03-01' }, 'from', /is after to/],
    [{ outcome: 'maybe' }, 'outcome', /passed or failed/],
    [{ severity: 'catastrophic' }, 'severity', /critical, major, minor/],
    [{ agent: ['a', 'b'] }, 'agent', /given once/],
    [{ rule: 'r'.repeat(201) }, 'rule', /at most 200/],
  ])('refuses %j naming the parameter', (query, field, message) => {
    expect(refusal(query)).toEqual({ code: 'INVALID_INPUT', field, message: expect.stringMatching(message) });
  });
});
