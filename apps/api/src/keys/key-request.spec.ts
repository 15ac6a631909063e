import { BadRequestException } from '@nestjs/common';

import { keyRequest } from './key-request';

describe('keyRequest', () => {
  const now = new Date('2030-05-01T12:00:00.000Z');

  it('gives a key without expires_at the default lifetime of 90 days', () => {
    expect(keyRequest({ role: 'reviewer' }, now)).toEqual({
      role: 'reviewer',
      name: 'reviewer key',
      expiresAt: '2030-07-30T12:00:00.000Z',
    });
  });

  it('makes a key that never expires only when asked for with expires_at: null', () => {
    expect(keyRequest({ role: 'admin', expires_at: null }, now).expiresAt).toBeNull();
    expect(keyRequest({ role: 'admin', expires_at: '2031-01-01T00:00:00+01:00' }, now).expiresAt).toBe(
      '2030-12-31T23:00:00.000Z',
    );
  });

  it.each([
    [{ role: 'admin', expires_at: 'never' }, 'expires_at: must be an ISO 8601 date-time'],
    [
      { role: 'admin', expires_at: 0 },
      'expires_at: must be an ISO 8601 date-time, or null for a key that never expires',
    ],
    [{ role: 'admin', expires_at: '2030-05-01T11:00:00Z' }, 'expires_at: must be in the future'],
  ])('refuses %j, naming the field', (body, message) => {
    expect(() => keyRequest(body, now)).toThrow(new BadRequestException(message));
  });
});
