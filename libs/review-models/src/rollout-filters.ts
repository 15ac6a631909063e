import { ReviewError } from './review-input.error';

export const severities = ['critical', 'major', 'minor'] as const;
export type Severity = (typeof severities)[number];

/** The rollout list's filters, each optional; dates are whole days (UTC), `to` inclusive. */
export interface RolloutFilters {
  scenario?: string;
  agent?: string;
  from?: string;
  to?: string;
  outcome?: 'passed' | 'failed';
  rule?: string;
  severity?: Severity;
}

const known = ['scenario', 'agent', 'from', 'to', 'outcome', 'rule', 'severity'] as const;

const day = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar day that exists: JavaScript reads 2026-02-30 as 2 March, so the day must survive the round trip. */
const isDay = (value: string) => {
  const parsed = new Date(`${value}T00:00:00Z`);
  return day.test(value) && !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
};

const text = (name: string, value: unknown): string | undefined => {
  if (value === undefined || value === '') {
    return undefined;
  }
  if (typeof value !== 'string') {
    throw new ReviewError('INVALID_INPUT', `${name} must be given once, as text`, name);
  }
  if (value.length > 200) {
    throw new ReviewError('INVALID_INPUT', `${name} must be at most 200 characters`, name);
  }
  return value;
};

/**
 * The filters from a query string, refusing what they cannot mean (an unknown name, a malformed date, an outcome or
 * severity that does not exist) with a message that names the parameter, rather than quietly showing everything.
 */
export const parseRolloutFilters = (query: Record<string, unknown>): RolloutFilters => {
  for (const name of Object.keys(query)) {
    if (!(known as readonly string[]).includes(name)) {
      throw new ReviewError('INVALID_INPUT', `unknown filter ${name}: use ${known.join(', ')}`, name);
    }
  }
  const filters: RolloutFilters = {};
  for (const name of ['scenario', 'agent', 'rule'] as const) {
    const value = text(name, query[name]);
    if (value !== undefined) {
      filters[name] = value;
    }
  }
  for (const name of ['from', 'to'] as const) {
    const value = text(name, query[name]);
    if (value !== undefined) {
      if (!isDay(value)) {
        throw new ReviewError(
          'INVALID_INPUT',
          `${name} must be a date as YYYY-MM-DD, not ${JSON.stringify(value)}`,
          name,
        );
      }
      filters[name] = value;
    }
  }
  if (filters.from && filters.to && filters.from > filters.to) {
    throw new ReviewError('INVALID_INPUT', `from (${filters.from}) is after to (${filters.to})`, 'from');
  }
  const outcome = text('outcome', query.outcome);
  if (outcome !== undefined) {
    if (outcome !== 'passed' && outcome !== 'failed') {
      throw new ReviewError('INVALID_INPUT', 'outcome must be passed or failed', 'outcome');
    }
    filters.outcome = outcome;
  }
  const severity = text('severity', query.severity);
  if (severity !== undefined) {
    if (!(severities as readonly string[]).includes(severity)) {
      throw new ReviewError('INVALID_INPUT', `severity must be one of ${severities.join(', ')}`, 'severity');
    }
    filters.severity = severity as Severity;
  }
  return filters;
};
