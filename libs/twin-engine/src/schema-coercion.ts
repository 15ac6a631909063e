import { flattenSchema, schemaTypes } from '@libs/openapi-schemas';

import { ExactInteger } from './exact-integers';

/**
 * What a decoded parameter or form field looks like before its schema gives it types: text, repeated text, or the
 * nested objects and lists that bracket notation (`items[0][price]=…`) spells.
 */
export type TextTree = string | TextTree[] | { [key: string]: TextTree };

/**
 * How text becomes a value. `exactIntegers`: an integer beyond 2^53 becomes a box of its digits (`ExactInteger`), as
 * in a JSON body, for a body whose bounds are checked on boxes; without it the digits stay text (parameters check
 * theirs on the text).
 */
export interface CoercionOptions {
  exactIntegers?: boolean;
}

/** Text to the scalar the schema's types say it is; anything else stays text for the validator to judge. */
export const coerceText = (raw: string, types: string[], options: CoercionOptions = {}): unknown => {
  if (types.includes('integer') && /^-?\d+$/.test(raw)) {
    // Beyond 2^53 a Number is another integer: kept as its digits, never silently rounded.
    if (Number.isSafeInteger(Number(raw))) {
      return Number(raw);
    }
    return options.exactIntegers ? new ExactInteger(raw) : raw;
  }
  if (types.includes('number') && raw.trim() !== '' && Number.isFinite(Number(raw))) {
    // Digits beyond 2^53 are kept as a JSON body keeps them, where a box can be kept.
    return options.exactIntegers && /^-?\d+$/.test(raw) && !Number.isSafeInteger(Number(raw))
      ? new ExactInteger(raw)
      : Number(raw);
  }
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) {
    return raw === 'true';
  }
  return raw;
};

/** A schema's alternatives read as one: the types, properties and items of every `anyOf`/`oneOf` branch together. */
export interface SchemaView {
  types: string[];
  properties: Record<string, unknown>;
  additional?: unknown;
  items?: unknown;
}

const maxBranchDepth = 4;

export const viewOf = (document: unknown, schema: unknown, depth = 0): SchemaView => {
  const flat = flattenSchema(document, schema);
  const view: SchemaView = {
    types: schemaTypes(flat),
    properties: { ...((flat.properties as Record<string, unknown> | undefined) ?? {}) },
    ...(flat.additionalProperties && typeof flat.additionalProperties === 'object'
      ? { additional: flat.additionalProperties }
      : {}),
    ...(flat.items !== undefined ? { items: flat.items } : {}),
  };
  if (depth >= maxBranchDepth) {
    return view;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    for (const branch of Array.isArray(flat[key]) ? (flat[key] as unknown[]) : []) {
      const inner = viewOf(document, branch, depth + 1);
      view.types = [...new Set([...view.types, ...inner.types])];
      view.properties = { ...inner.properties, ...view.properties };
      view.additional ??= inner.additional;
      view.items ??= inner.items;
    }
  }
  if (view.types.length === 0 && Array.isArray(flat.enum)) {
    view.types = [...new Set(flat.enum.map((value) => (value === null ? 'null' : typeof value)))];
  }
  return view;
};

const isIndexed = (tree: Record<string, TextTree>): boolean => Object.keys(tree).every((key) => /^\d+$/.test(key));

/** `{ "0": …, "7": … }` (indices past the decoder's array limit) as the list it means, in index order, without gaps. */
const indexedList = (tree: Record<string, TextTree>): TextTree[] =>
  Object.keys(tree)
    .sort((a, b) => Number(a) - Number(b))
    .map((key) => tree[key]);

/**
 * Gives decoded text the types its schema declares: numbers, booleans, lists (one value where a list is expected
 * is a list of one) and objects, recursively through properties, `additionalProperties` and items. A value the
 * schema does not describe stays as sent, so validation, not coercion, decides whether it is allowed.
 */
export const coerceTree = (
  document: unknown,
  schema: unknown,
  tree: TextTree,
  options: CoercionOptions = {},
  depth = 0,
): unknown => {
  const view = depth > 64 ? { types: [], properties: {} } : viewOf(document, schema);
  const wantsList = view.types.includes('array');
  if (tree === null || (typeof tree !== 'object' && typeof tree !== 'string') || tree instanceof ExactInteger) {
    // Already typed (a multipart part sent as JSON).
    return tree;
  }
  if (typeof tree === 'string') {
    if (wantsList && !view.types.includes('string')) {
      return [coerceText(tree, viewOf(document, view.items ?? {}).types, options)];
    }
    return coerceText(tree, view.types, options);
  }
  if (Array.isArray(tree)) {
    return tree.map((item) => coerceTree(document, wantsList ? (view.items ?? {}) : schema, item, options, depth + 1));
  }
  if (wantsList && !view.types.includes('object') && isIndexed(tree)) {
    return indexedList(tree).map((item) => coerceTree(document, view.items ?? {}, item, options, depth + 1));
  }
  return Object.fromEntries(
    Object.entries(tree).map(([key, value]) => [
      key,
      coerceTree(document, view.properties[key] ?? view.additional ?? {}, value, options, depth + 1),
    ]),
  );
};
