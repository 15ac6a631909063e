import { PostgrestFault } from './postgrest-fault';
import { Column } from './postgrest-tables';

const uuidPattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const truthy = new Set(['t', 'true', 'y', 'yes', 'on', '1']);
const falsy = new Set(['f', 'false', 'n', 'no', 'off', '0']);

const invalid = (column: Column, text: string): PostgrestFault =>
  new PostgrestFault(
    400,
    column.kind === 'timestamp' || column.kind === 'date' ? '22007' : '22P02',
    `invalid input syntax for type ${column.typeName}: "${text.slice(0, 200)}"`,
  );

const rejected = (column: Column, value: unknown): never => {
  throw invalid(column, JSON.stringify(value));
};

/** A filter's text as the column's type reads it (PostgreSQL's casts), or its 400 `invalid input syntax`. */
export const fromText = (column: Column, text: string): unknown => {
  switch (column.kind) {
    case 'integer':
      if (!/^\s*[+-]?\d+\s*$/.test(text) || !Number.isSafeInteger(Number(text))) {
        throw invalid(column, text);
      }
      return Number(text);
    case 'number': {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value)) {
        throw invalid(column, text);
      }
      return value;
    }
    case 'boolean': {
      const lower = text.trim().toLowerCase();
      if (truthy.has(lower)) {
        return true;
      }
      if (falsy.has(lower)) {
        return false;
      }
      throw invalid(column, text);
    }
    case 'uuid':
      if (!uuidPattern.test(text.trim())) {
        throw invalid(column, text);
      }
      return text.trim().toLowerCase();
    case 'timestamp':
    case 'date':
      if (Number.isNaN(Date.parse(text))) {
        throw invalid(column, text);
      }
      return text;
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new PostgrestFault(
          400,
          '22P02',
          `invalid input syntax for type json`,
          `Token "${text.slice(0, 50)}" is invalid.`,
        );
      }
    case 'text':
      return text;
  }
};

/** A value of a request body as the column stores it (JSON numbers in text columns become text, as PostgreSQL does). */
export const fromJson = (column: Column, value: unknown): unknown => {
  if (value === null) {
    return null;
  }
  switch (column.kind) {
    case 'json':
      return value;
    case 'text':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'integer':
    case 'number':
      if (typeof value === 'number') {
        if (column.kind === 'integer' && !Number.isSafeInteger(value)) {
          throw invalid(column, String(value));
        }
        return value;
      }
      return typeof value === 'string' ? fromText(column, value) : rejected(column, value);
    case 'boolean':
      return typeof value === 'boolean'
        ? value
        : typeof value === 'string'
          ? fromText(column, value)
          : rejected(column, value);
    case 'uuid':
    case 'timestamp':
    case 'date':
      return typeof value === 'string' ? fromText(column, value) : rejected(column, value);
  }
};

const epoch = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN);

/**
 * The order of two non-null values of a column: numbers and booleans by value, times by the instant they name, text
 * by code point (PostgreSQL's C collation), JSON by its text.
 */
export const compareValues = (column: Column, a: unknown, b: unknown): number => {
  switch (column.kind) {
    case 'integer':
    case 'number':
      return Number(a) - Number(b);
    case 'boolean':
      return Number(a) - Number(b);
    case 'timestamp':
    case 'date': {
      const left = epoch(a);
      const right = epoch(b);
      if (!Number.isNaN(left) && !Number.isNaN(right)) {
        return left - right;
      }
      break;
    }
    case 'json': {
      const left = JSON.stringify(a);
      const right = JSON.stringify(b);
      return left < right ? -1 : left > right ? 1 : 0;
    }
    default:
      break;
  }
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
};

/**
 * SQL `LIKE` (`%` any run, `_` one character, `\` escapes; PostgREST also reads `*` as `%`) by two pointers and one
 * backtrack point, so a pattern of many wildcards costs length × pattern, never the exponential time a regular
 * expression built from it could take on a long value.
 */
export const likeMatches = (text: string, pattern: string, insensitive: boolean): boolean => {
  const tokens: { kind: 'any' | 'one' | 'char'; char?: string }[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\' && i + 1 < pattern.length) {
      tokens.push({ kind: 'char', char: pattern[++i] });
    } else if (char === '%' || char === '*') {
      tokens.push({ kind: 'any' });
    } else if (char === '_') {
      tokens.push({ kind: 'one' });
    } else {
      tokens.push({ kind: 'char', char });
    }
  }
  const subject = insensitive ? text.toLowerCase() : text;
  const same = (token: { kind: string; char?: string }, char: string): boolean =>
    token.kind === 'one' || (insensitive ? token.char?.toLowerCase() : token.char) === char;
  let t = 0;
  let p = 0;
  let star = -1;
  let mark = 0;
  while (t < subject.length) {
    if (p < tokens.length && tokens[p].kind !== 'any' && same(tokens[p], subject[t])) {
      t++;
      p++;
    } else if (p < tokens.length && tokens[p].kind === 'any') {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < tokens.length && tokens[p].kind === 'any') {
    p++;
  }
  return p === tokens.length;
};
