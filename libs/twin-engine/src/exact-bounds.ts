import { flattenSchema } from '@libs/openapi-schemas';

import { viewOf } from './schema-coercion';

const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/**
 * An integer bound as exact as the document still has it: a bound beyond 2^53 was rounded when the spec was parsed,
 * and ±2^63 is what int64's limits (2^63 - 1, -2^63) round to.
 */
const exactBound = (bound: unknown, side: 'min' | 'max'): bigint | undefined => {
  if (typeof bound !== 'number' || !Number.isFinite(bound)) {
    return undefined;
  }
  if (Math.abs(bound) === 2 ** 63) {
    return bound > 0 ? int64.max : int64.min;
  }
  const whole = side === 'max' ? Math.floor(bound) : Math.ceil(bound);
  return BigInt(whole);
};

/**
 * Whether an integer beyond 2^53 lies within its schema's bounds, compared on the digits: the nearest number passes
 * every bound it is near (2^63 + 1 rounds to int64's maximum), so the validator alone cannot tell.
 */
export const withinExactBounds = (document: unknown, schema: unknown, digits: string): boolean => {
  const flat = flattenSchema(document, schema);
  const value = BigInt(digits);
  if (flat.format === 'int64' && (value < int64.min || value > int64.max)) {
    return false;
  }
  if (flat.format === 'int32' && (value < -(2n ** 31n) || value >= 2n ** 31n)) {
    return false;
  }
  const max = exactBound(flat.maximum, 'max');
  const min = exactBound(flat.minimum, 'min');
  const exclusiveMax = typeof flat.exclusiveMaximum === 'number' ? exactBound(flat.exclusiveMaximum, 'max') : undefined;
  const exclusiveMin = typeof flat.exclusiveMinimum === 'number' ? exactBound(flat.exclusiveMinimum, 'min') : undefined;
  return (
    (max === undefined || (flat.exclusiveMaximum === true ? value < max : value <= max)) &&
    (min === undefined || (flat.exclusiveMinimum === true ? value > min : value >= min)) &&
    (exclusiveMax === undefined || value < exclusiveMax) &&
    (exclusiveMin === undefined || value > exclusiveMin)
  );
};

const numeric = (document: unknown, schema: unknown): boolean => {
  const types = viewOf(document, schema).types;
  return types.length === 0 || types.includes('integer') || types.includes('number');
};

/**
 * Whether a schema admits an integer beyond 2^53, on its digits: its own bounds, and when it offers alternatives
 * (`oneOf: [{type: integer, format: int64}, {type: string}]`), those of one numeric alternative at least. Whether the
 * value is an integer the schema takes at all is the validator's to say (given the nearest number).
 */
export const admitsExactInteger = (document: unknown, schema: unknown, digits: string): boolean => {
  if (!withinExactBounds(document, schema, digits)) {
    return false;
  }
  const flat = flattenSchema(document, schema);
  const alternatives = [flat.anyOf, flat.oneOf].flatMap((list) => (Array.isArray(list) ? (list as unknown[]) : []));
  const numericAlternatives = alternatives.filter((alternative) => numeric(document, alternative));
  return (
    numericAlternatives.length === 0 ||
    numericAlternatives.some((alternative) => withinExactBounds(document, alternative, digits))
  );
};

/**
 * The schema a value at `path` (JSON pointer steps) is checked against, through properties, additional properties,
 * items and the alternatives `viewOf` reads as one; `{}` where the schema says nothing of it.
 */
export const schemaAtPath = (document: unknown, schema: unknown, path: readonly string[]): unknown => {
  let current: unknown = schema ?? {};
  for (const step of path) {
    const view = viewOf(document, current);
    const isIndex = /^\d+$/.test(step);
    current =
      isIndex && view.items !== undefined && !Object.hasOwn(view.properties, step)
        ? view.items
        : (view.properties[step] ?? view.additional ?? {});
  }
  return current;
};
