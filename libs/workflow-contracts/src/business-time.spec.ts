import { addBusinessDays, businessDaysBetween, endOfBusinessDays, nextOpen } from './business-time';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number): string => new Date(ms).toISOString();

describe('business time', () => {
  // 2026-03-02 is a Monday.
  it('opens at 09:00 on the next weekday', () => {
    expect(iso(nextOpen(at('2026-03-02T07:30:00Z')))).toBe('2026-03-02T09:00:00.000Z');
    expect(iso(nextOpen(at('2026-03-02T17:00:00Z')))).toBe('2026-03-03T09:00:00.000Z');
    expect(iso(nextOpen(at('2026-03-07T12:00:00Z')))).toBe('2026-03-09T09:00:00.000Z');
  });

  it('counts business days over the weekend, at the hour the count started', () => {
    expect(iso(addBusinessDays(at('2026-03-02T09:00:00Z'), 5))).toBe('2026-03-09T09:00:00.000Z');
    expect(iso(addBusinessDays(at('2026-03-05T14:00:00Z'), 1))).toBe('2026-03-06T14:00:00.000Z');
    expect(iso(addBusinessDays(at('2026-03-06T16:00:00Z'), 0.25))).toBe('2026-03-09T10:00:00.000Z');
    expect(businessDaysBetween(at('2026-03-02T09:00:00Z'), at('2026-03-09T09:00:00Z'))).toBe(5);
  });

  describe('a deadline of N business days', () => {
    const start = at('2026-03-02T09:00:00Z');

    it('ends at the close of business day N, not at the hour the count started', () => {
      expect(iso(endOfBusinessDays(start, 5))).toBe('2026-03-09T17:00:00.000Z');
      // A delivery on day 5 at 17:00 is within 5 business days; one on day 6 is not.
      expect(at('2026-03-09T17:00:00Z')).toBeLessThanOrEqual(endOfBusinessDays(start, 5));
      expect(at('2026-03-10T09:00:00Z')).toBeGreaterThan(endOfBusinessDays(start, 5));
      // What the old rule compared against: 09:00 of day 5, which refused the delivery at 17:00 that day.
      expect(at('2026-03-09T17:00:00Z')).toBeGreaterThan(addBusinessDays(start, 5));
    });

    it('counts from the next opening when it starts outside office hours, and carries over weekends', () => {
      expect(iso(endOfBusinessDays(at('2026-03-06T18:00:00Z'), 1))).toBe('2026-03-10T17:00:00.000Z');
      expect(iso(endOfBusinessDays(at('2026-03-05T16:30:00Z'), 1))).toBe('2026-03-06T17:00:00.000Z');
      expect(iso(endOfBusinessDays(start, 0))).toBe('2026-03-02T17:00:00.000Z');
    });

    it('keeps a fraction of a day landing at the close on that day', () => {
      // 16:00 plus one office hour is 17:00 the same day: that day's close, not the next one's.
      expect(iso(endOfBusinessDays(at('2026-03-03T16:00:00Z'), 0.125))).toBe('2026-03-03T17:00:00.000Z');
    });
  });
});
