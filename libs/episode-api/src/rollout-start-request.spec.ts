import { BadRequestException } from '@nestjs/common';

import { rolloutIdFor } from './rollout-idempotency';
import { rolloutStartRequest } from './rollout-start-request';

const refusal = (raw: unknown): string => {
  try {
    rolloutStartRequest(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return (error as BadRequestException).message;
  }
  throw new Error('accepted');
};

describe(rolloutStartRequest.name, () => {
  it('takes the command line’s defaults for what is not given', () => {
    expect(rolloutStartRequest({ stack: 'abcdef12', agent: 'oracle' })).toEqual({
      stack: 'abcdef12',
      agent: 'oracle',
      tasks: ['all'],
      seeds: 1,
      seed: 1,
      trials: 1,
      concurrency: 2,
    });
  });

  it('names every bad field by its JSON pointer, in one answer', () => {
    expect(refusal({ stack: 7, agent: 'oracle', tasks: ['a', 3], trials: 0, concurrency: 65, 'odd/name': true })).toBe(
      [
        '/stack: must be a string: a stack id, or a version (its hash, or 8+ of its first characters)',
        '/tasks/1: must be a string: all, a scenario id, or <scenario>@<seed>',
        '/trials: must be an integer from 1 to 100',
        '/concurrency: must be an integer from 1 to 64',
        '/odd~1name: unknown field',
      ].join('; '),
    );
    expect(refusal({ stack: 'abcdef12' })).toBe('/agent: must be a string naming an agent the workers play');
    expect(refusal({ stack: 'abcdef12', agent: 'x', tasks: [], seeds: 1.5 })).toBe(
      '/tasks: must name at least one task; /seeds: must be an integer from 1 to 10000',
    );
    expect(refusal([])).toMatch(/^body: must be a JSON object/);
  });
});

describe(rolloutIdFor.name, () => {
  it('gives a retry with the same key the same rollout, and another tenant or key another one', () => {
    const id = rolloutIdFor('north', 'nightly-42');

    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rolloutIdFor('north', 'nightly-42')).toBe(id);
    expect(rolloutIdFor('south', 'nightly-42')).not.toBe(id);
    expect(rolloutIdFor('north', 'nightly-43')).not.toBe(id);
    expect(rolloutIdFor('north', undefined)).not.toBe(rolloutIdFor('north', undefined));
    expect(() => rolloutIdFor('north', 'has space')).toThrow(/Idempotency-Key/);
  });
});
