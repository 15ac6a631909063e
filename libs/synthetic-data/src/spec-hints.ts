import type { Schema } from '@libs/openapi-schemas';
import { isRedacted } from '@libs/redaction';

/**
 * Values a property's description lists as the allowed ones, the way API docs write them when the schema has no
 * `enum`: "Either open or closed", "Can be one of: `open`, `closed`, `all`", "Possible values are a, b and c".
 * Only lists of at least two short tokens count: a sentence with "or" in it is not a list of values.
 */
export const describedValues = (description: unknown): string[] => {
  if (typeof description !== 'string' || description.length === 0) {
    return [];
  }
  const text = description.replace(/\s+/g, ' ');
  const found: string[][] = [];
  // A list after an introducing phrase, up to the end of its sentence.
  const introduced =
    /(?:\beither\b|\bone of\b|\bpossible values?\b|\ballowed values?\b|\bvalid values?\b|\bsupported values?\b|\b(?:can|must|may|should) be\b|\bvalues? (?:are|is|include)\b)(?:\s+(?:are|is|includes?)\b)?\s*:?\s*((?:[^.;\n]|\.(?=\w))+)/gi;
  for (const match of text.matchAll(introduced)) {
    found.push(listOf(match[1]));
  }
  // Backticked tokens joined by commas and "or"/"and" anywhere ("`open`, `closed`, or `all`"); three at least, since
  // two ("changed to `accepted` or `rejected`") are as often another field's values mentioned in passing.
  for (const match of text.matchAll(
    /`[^`\s]{1,40}`(?:\s*(?:,|\bor\b|\band\b|\/|\|)\s*(?:or\s+|and\s+)?`[^`\s]{1,40}`)+/gi,
  )) {
    const tokens = [...match[0].matchAll(/`([^`\s]{1,40})`/g)].map((m) => m[1]);
    found.push(tokens.length >= 3 ? tokens : []);
  }
  // "open or closed" on its own: two or three bare lower-case tokens joined by "or", the whole description's point.
  const bare =
    /^(?:the [\w ]+? (?:is|of \w+(?: \w+)?)\s*[:,]?\s*)?([a-z][a-z0-9_-]*(?:, [a-z][a-z0-9_-]*)*,? or [a-z][a-z0-9_-]*)\.?$/i.exec(
      text.trim(),
    );
  if (bare) {
    found.push(listOf(bare[1]));
  }
  const best = found.filter((list) => list.length >= 2).sort((a, b) => b.length - a.length)[0];
  return best ? [...new Set(best)] : [];
};

/** Splits "`a`, `b`, or `c`" / "a, b and c" into tokens; anything that is not a short token spoils the list. */
const listOf = (phrase: string): string[] => {
  const backticked = [...phrase.matchAll(/`([^`]{1,40})`/g)].map((m) => m[1].trim());
  if (backticked.length >= 2) {
    return backticked;
  }
  const parts = phrase
    .replace(/\([^)]*\)/g, '')
    .split(/\s*(?:,|\bor\b|\band\b|\/|\|)\s*/i)
    .map((part) => part.trim().replace(/^["'“”‘’]|["'“”‘’]$/g, ''))
    .filter(Boolean);
  // A prose list ("be created by an admin or a user") is not a list of values.
  return parts.every((part) => /^[\w.:-]{1,40}$/.test(part)) ? parts : [];
};

/** The property's own examples: `example`, the JSON Schema `examples` array, then `default`. */
export const exampleValues = (schema: Schema): unknown[] => {
  const values: unknown[] = [];
  if (Array.isArray(schema.examples)) {
    values.push(...(schema.examples as unknown[]));
  }
  if (schema.example !== undefined) {
    values.push(schema.example);
  }
  if (schema.default !== undefined) {
    values.push(schema.default);
  }
  // An example redacted at ingest (a real person's address in a client's spec) stands for nothing now: the field's
  // format or name makes the value instead, so a marker never reaches a record (`[redacted:card]` is no card number).
  return values.filter(
    (value, index) =>
      !isRedacted(value) && values.findIndex((v) => JSON.stringify(v) === JSON.stringify(value)) === index,
  );
};

/**
 * A field whose value is a category (a state, a kind), so one of the spec's own examples is the right value every
 * time rather than a random word: the example `open` for `state` is what every client expects to see.
 */
export const isCategoryField = (name: string | undefined): boolean =>
  name !== undefined &&
  /(^|_)(state|status|kind|type|category|priority|severity|level|mode|tier|visibility|role|channel|method|source|reason|stage|phase|plan|interval|object|currency|locale|language|unit)$/.test(
    name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase(),
  );

/** A value that reads as a token (`open`, `pull_request`, `card`), not as free text someone typed. */
export const isToken = (value: unknown): value is string =>
  typeof value === 'string' && /^[a-z][a-z0-9_.:-]{0,39}$/i.test(value) && !/\d{3,}/.test(value);
