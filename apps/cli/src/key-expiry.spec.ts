import { UsageError } from './cli-output';
import { keyExpiry } from './key-expiry';

describe('keyExpiry', () => {
  const now = new Date('2030-05-01T12:00:00.000Z');

  it('reads lifetimes, zoned date-times and never; no option is the default lifetime of 90 days', () => {
    expect(keyExpiry('12h', now)).toBe('2030-05-02T00:00:00.000Z');
    expect(keyExpiry('90d', now)).toBe('2030-07-30T12:00:00.000Z');
    expect(keyExpiry('2031-01-01T00:00:00+01:00', now)).toBe('2030-12-31T23:00:00.000Z');
    expect(keyExpiry(undefined, now)).toBe('2030-07-30T12:00:00.000Z');
    expect(keyExpiry('never', now)).toBeNull();
  });

  it.each([
    ['tomorrow', /lifetime \(12h, 90d\), an ISO 8601 date-time with its zone, or never/],
    ['2031-01-01', /lifetime \(12h, 90d\), an ISO 8601 date-time with its zone, or never/],
    ['Never', /lifetime \(12h, 90d\), an ISO 8601 date-time with its zone, or never/],
    ['0h', /must be in the future/],
    ['2030-05-01T11:59:59Z', /must be in the future/],
  ])('refuses %j as a usage error', (text, message) => {
    expect(() => keyExpiry(text, now)).toThrow(UsageError);
    expect(() => keyExpiry(text, now)).toThrow(message);
  });
});
