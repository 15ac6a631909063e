import { parse as losslessParse } from 'lossless-json';

/**
 * Integers JavaScript cannot hold exactly (beyond 2^53), kept as their digits from the JSON text a client sent to the
 * episode's log and back to the client: real servers (Java, Go, Python) keep an int64 exact, so a twin that rounded
 * `9007199254740993` to `…992` would store and echo another number. Node 20 has neither `JSON.rawJSON` nor the
 * parse source text, so such an integer is boxed at parse time and written back as bare digits by `stringifyExact`.
 */

/**
 * What a boxed integer becomes inside `JSON.stringify`, before `stringifyExact` puts its digits back: NUL is refused
 * in every text a twin stores (PostgreSQL cannot hold it), so no stored string can look like one. A box serialised
 * by a plain `JSON.stringify` leaves this string in its output, and PostgreSQL refuses it: a path that forgot
 * `stringifyExact` fails loudly rather than storing a rounded or quoted number.
 */
const sentinel = '\u0000';

/**
 * An integer literal beyond 2^53 as it was sent. Its digits are a private field, so generic walkers (redaction,
 * copies that rebuild objects from their entries) see an object with nothing to change and leave it as it is.
 * `valueOf` is the nearest Number, so `<` and arithmetic still order it among other numbers; `String()` gives the
 * digits, so comparisons on text (list filters) are exact.
 */
export class ExactInteger {
  readonly #digits: string;

  constructor(digits: string) {
    if (!/^-?\d+$/.test(digits)) {
      throw new Error(`not an integer literal: ${digits}`);
    }
    this.#digits = digits;
  }

  get digits(): string {
    return this.#digits;
  }

  valueOf(): number {
    return Number(this.#digits);
  }

  toString(): string {
    return this.#digits;
  }

  toBigInt(): bigint {
    return BigInt(this.#digits);
  }

  toJSON(): string {
    return `${sentinel}${this.#digits}`;
  }

  /**
   * `[object ExactInteger]`: how libraries below the twin engine (the outcome judge's CEL values) tell a box from a
   * plain object without importing it, and give CEL its digits as a BigInt, CEL's own integer.
   */
  get [Symbol.toStringTag](): string {
    return 'ExactInteger';
  }
}

export const isExactInteger = (value: unknown): value is ExactInteger => value instanceof ExactInteger;

/** 2^53 has 16 digits: a text without a run of 16 digits holds no integer literal JSON.parse would round. */
const longDigitRun = /\d{16}/;

/**
 * A number literal with a positive exponent (`1e20`, `9.007199254740993e15`), where a JSON value may start: written
 * so, an integer beyond 2^53 needs no run of 16 digits. A negative exponent cannot make one without such a run.
 */
const exponentLiteral = /(?:^|[:,[])\s*-?\d+(?:\.\d+)?[eE]\+?\d/;

const integerLiteral = /^-?\d+$/;

const decimalLiteral = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Past this many digits a literal written with an exponent is left to JSON.parse: `1e100000` would otherwise be a
 * hundred thousand digits from a few bytes. int64 has 19, so nothing a schema can bound exactly is lost.
 */
const maxExpandedDigits = 40;

/**
 * The digits of an integer written with a fraction or an exponent (`9007199254740993.0`, `1e20`), or undefined
 * when the literal has a fractional part or would expand past `maxExpandedDigits`.
 */
const integerDigitsOf = (literal: string): string | undefined => {
  const parts = decimalLiteral.exec(literal);
  if (!parts) {
    return undefined;
  }
  const [, sign, whole, fraction = '', exponentText = '0'] = parts;
  const significant = `${whole}${fraction}`.replace(/^0+/, '');
  const mantissa = significant.replace(/0+$/, '');
  // Bounded before it is used: an exponent of many digits is a huge Number (or Infinity), never a huge string.
  const exponent = Number(exponentText) - fraction.length + (significant.length - mantissa.length);
  if (mantissa === '') {
    return '0';
  }
  if (exponent < 0 || mantissa.length + exponent > maxExpandedDigits) {
    return undefined;
  }
  return `${sign}${mantissa}${'0'.repeat(exponent)}`;
};

/**
 * Integers JavaScript cannot hold are boxed, however they were written (`9007199254740993`, `…993.0`, `1e20`);
 * every other number is what JSON.parse would make of it.
 */
const parseNumber = (literal: string): unknown => {
  const value = Number(literal);
  if (Number.isSafeInteger(value)) {
    return value;
  }
  if (integerLiteral.test(literal)) {
    return new ExactInteger(literal);
  }
  const digits = integerDigitsOf(literal);
  return digits !== undefined && !Number.isSafeInteger(Number(digits)) ? new ExactInteger(digits) : value;
};

/**
 * `JSON.parse`, keeping integers beyond 2^53 exact (boxed). JSON.parse runs first in every case: it is the fast path
 * (a text without a run of 16 digits or a number with an exponent is answered by it alone) and the judge of syntax, so a malformed text fails with
 * its usual message. Only a text that may hold such an integer is parsed again without loss. The lossless parser
 * refuses a key given twice with two values, which JSON.parse takes as the last: such a text keeps JSON.parse's
 * reading (its big integers rounded, so refused where they would be stored).
 */
export const parseExact = (text: string): unknown => {
  const fast: unknown = JSON.parse(text);
  if (!longDigitRun.test(text) && !exponentLiteral.test(text)) {
    return fast;
  }
  try {
    return losslessParse(text, null, parseNumber);
  } catch {
    return fast;
  }
};

/** A sentinel string as JSON.stringify writes it, as a value (a key is followed by a colon). */
const boxedInJson = /"\\u0000(-?\d+)"(?!:)/g;

/**
 * `JSON.stringify` writing boxed integers as the bare digits they were sent as. The output is searched for the
 * sentinel's escape only, so a value without boxes costs one scan of its text beyond JSON.stringify.
 */
export const stringifyExact = (value: unknown, space?: number): string => {
  // Typed as JSON.stringify is: undefined for undefined, which callers rule out as they do for it.
  const text = JSON.stringify(value, null, space);
  return text !== undefined && text.includes('"\\u0000') ? text.replace(boxedInJson, '$1') : text;
};

/** Whether a value holds a boxed integer anywhere: iterative, as bodies may nest deep. */
export const holdsExactInteger = (root: unknown): boolean => {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof ExactInteger) {
      return true;
    }
    if (value !== null && typeof value === 'object') {
      const children: unknown[] = Array.isArray(value) ? (value as unknown[]) : Object.values(value);
      stack.push(...children);
    }
  }
  return false;
};

/**
 * A copy with every boxed integer replaced: by the nearest Number for a validator (which knows no boxes; the digits'
 * bounds are checked apart), by BigInt for CEL. Values without boxes are returned as they are.
 */
export const replaceExactIntegers = (root: unknown, replace: (boxed: ExactInteger) => unknown): unknown => {
  if (root instanceof ExactInteger) {
    return replace(root);
  }
  if (Array.isArray(root)) {
    let changed = false;
    const items = root.map((item) => {
      const next = replaceExactIntegers(item, replace);
      changed ||= next !== item;
      return next;
    });
    return changed ? items : root;
  }
  if (root !== null && typeof root === 'object') {
    let changed = false;
    const entries = Object.entries(root).map(([key, item]) => {
      const next = replaceExactIntegers(item, replace);
      changed ||= next !== item;
      return [key, next] as const;
    });
    return changed ? Object.fromEntries(entries) : root;
  }
  return root;
};

/** Each boxed integer of a value with where it is, as JSON pointer steps from the root. */
export const exactIntegersIn = (root: unknown): { path: string[]; value: ExactInteger }[] => {
  const found: { path: string[]; value: ExactInteger }[] = [];
  const stack: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string[] };
    if (value instanceof ExactInteger) {
      found.push({ path, value });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        stack.push({ value: child, path: [...path, key] });
      }
    }
  }
  return found;
};

/**
 * A value as a validator may judge it: each boxed integer as its nearest number (ajv knows no boxes, and would see an
 * empty object). The digits' own bounds are checked where the request is validated.
 */
export const withNearestNumbers = (value: unknown): unknown =>
  holdsExactInteger(value) ? replaceExactIntegers(value, (boxed) => boxed.valueOf()) : value;
