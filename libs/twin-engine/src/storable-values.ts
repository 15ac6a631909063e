import { ExactInteger } from './exact-integers';

/**
 * What a twin refuses in a request value before it can reach the episode's record: PostgreSQL cannot store NUL in
 * text or JSON, so a `\u0000` would fail the write (a 503) after the twin had answered; a number JavaScript cannot
 * hold at all (`1e400` is Infinity, which JSON writes as null) would be stored and echoed as another, and so would an
 * integer beyond 2^53 that no box keeps exact (`1e100`, past what `exact-integers` expands) where its schema wants an
 * integer; and nesting without bound would outgrow every walk. Where the schema takes a `number`, such a value is the
 * double it was sent as.
 */
const maxBodyDepth = 256;

export interface UnstorableValue {
  /** Where, in the problem-location form of request validation: `body/lines/0/note`, `query.q`. */
  location: string;
  message: string;
}

export const unstorableText = (text: string): string | undefined =>
  text.includes('\u0000') ? 'holds a NUL character (\\u0000), which cannot be stored' : undefined;

interface Visit {
  value: unknown;
  location: string;
  depth: number;
  /** Where it is, as JSON pointer steps from the root: the parent's visit and the key, joined only when asked. */
  parent?: Visit;
  key?: string;
}

const stepsOf = (visit: Visit): string[] => {
  const steps: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) {
    steps.push(at.key);
  }
  return steps.reverse();
};

/**
 * The first place in a parsed body that cannot be stored exactly, or undefined. Iterative: depth is the attack.
 * `wantsInteger` says whether the schema at a place (JSON pointer steps) takes only integers; unsaid, every place does.
 */
export const unstorableValue = (
  root: unknown,
  prefix: string,
  wantsInteger: (steps: readonly string[]) => boolean = () => true,
): UnstorableValue | undefined => {
  const stack: Visit[] = [{ value: root, location: prefix, depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    const { value, location, depth } = visit;
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (problem) {
        return { location, message: problem };
      }
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        return { location, message: 'is a number too large to hold (it would be stored as null)' };
      }
      if (Number.isInteger(value) && !Number.isSafeInteger(value) && wantsInteger(stepsOf(visit))) {
        return {
          location,
          message:
            'is an integer beyond 2^53 that cannot be kept exact (written with an exponent past 40 digits); ' +
            'send its digits alone, or as a string',
        };
      }
    } else if (value instanceof ExactInteger) {
      // Its digits, as sent: stored and answered exactly.
    } else if (value !== null && typeof value === 'object') {
      if (depth >= maxBodyDepth) {
        return { location, message: `nests deeper than ${maxBodyDepth} levels` };
      }
      for (const [key, child] of Object.entries(value)) {
        const keyProblem = unstorableText(key);
        if (keyProblem) {
          return { location: `${location}/${key.replaceAll('\u0000', '\\u0000')}`, message: `key ${keyProblem}` };
        }
        stack.push({ value: child, location: `${location}/${key}`, depth: depth + 1, parent: visit, key });
      }
    }
  }
  return undefined;
};
