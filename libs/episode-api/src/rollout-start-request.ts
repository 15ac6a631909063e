import { BadRequestException } from '@nestjs/common';
import { z } from 'zod';

import { maxRolloutSeeds } from '@libs/rollouts';

/** Trials played at once, at most: the same bound as the command line's `--concurrency`. */
const maxConcurrency = 64;

const integer = (min: number, max: number) =>
  z
    .number({ message: `must be an integer from ${min} to ${max}` })
    .int(`must be an integer from ${min} to ${max}`)
    .min(min, `must be an integer from ${min} to ${max}`)
    .max(max, `must be an integer from ${min} to ${max}`);

const body = z
  .object({
    stack: z
      .string({ message: 'must be a string: a stack id, or a version (its hash, or 8+ of its first characters)' })
      .min(1, 'must not be empty'),
    agent: z.string({ message: 'must be a string naming an agent the workers play' }).min(1, 'must not be empty'),
    tasks: z
      .array(z.string({ message: 'must be a string: all, a scenario id, or <scenario>@<seed>' }), {
        message: 'must be an array of tasks: all, scenario ids, or <scenario>@<seed>',
      })
      .min(1, 'must name at least one task')
      .max(1000, 'at most 1000 items')
      .default(['all']),
    seeds: integer(1, maxRolloutSeeds).default(1),
    seed: integer(0, 2 ** 31).default(1),
    trials: integer(1, 100).default(1),
    concurrency: integer(1, maxConcurrency).default(2),
  })
  .strict();

export type RolloutStartRequest = z.infer<typeof body>;

/** A JSON pointer (RFC 6901) to a field of the body. */
export const pointerTo = (path: readonly (string | number)[]): string =>
  path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** Every problem of a rollout request's body, each as `<JSON pointer>: <what is wrong>`, in one 400. */
export const rolloutStartRequest = (raw: unknown): RolloutStartRequest => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new BadRequestException('body: must be a JSON object (Content-Type: application/json)');
  }
  const parsed = body.safeParse(raw);
  if (!parsed.success) {
    throw new BadRequestException(
      parsed.error.issues
        .flatMap((issue) =>
          issue.code === 'unrecognized_keys'
            ? issue.keys.map((key) => `${pointerTo([...issue.path, key])}: unknown field`)
            : [`${pointerTo(issue.path)}: ${issue.message}`],
        )
        .join('; '),
    );
  }
  return parsed.data;
};
