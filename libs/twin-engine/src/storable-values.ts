import { ExactInteger } from './exact-integers';

/**
 * What a twin refuses in a request value before it can reach the episode's record: PostgreSQL cannot store NUL in
 * text or JSON, so a `\u0000` would fail the write (a 503) after the twin had answered; a number JavaScript would
 * round to another integer (`1e20` written with an exponent; an integer literal is kept exact, see `exact-integers`)
 * or to no number at all (`1e400` is Infinity, which JSON writes as null) would be stored and echoed as another; and
 * nesting without bound would outgrow every walk.
 */
const maxBodyDepth = 256;

export interface UnstorableValue {
  /** Where, in the problem-location form of request validation: `body/lines/0/note`, `query.q`. */
  location: string;
  message: string;
}

export const unstorableText = (text: string): string | undefined =>
  text.includes('\u0000') ? 'holds a NUL character (\\u0000), which cannot be stored' : undefined;

/** The first place in a parsed body that cannot be stored exactly, or undefined. Iterative: depth is the attack. */
export const unstorableValue = (root: unknown, prefix: string): UnstorableValue | undefined => {
  const stack: { value: unknown; location: string; depth: number }[] = [{ value: root, location: prefix, depth: 0 }];
  while (stack.length > 0) {
    const { value, location, depth } = stack.pop() as { value: unknown; location: string; depth: number };
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (problem) {
        return { location, message: problem };
      }
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        return { location, message: 'is a number too large to hold (it would be stored as null)' };
      }
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        return {
          location,
          message:
            'is an integer beyond 2^53 that cannot be kept exact here (written with a fraction or an exponent, ' +
            'or inside a form part); send its digits alone, or as a string',
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
        stack.push({ value: child, location: `${location}/${key}`, depth: depth + 1 });
      }
    }
  }
  return undefined;
};
