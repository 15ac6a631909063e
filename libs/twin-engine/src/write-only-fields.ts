import { flattenSchema, referenceOf, Schema } from '@libs/openapi-schemas';

/** A copy of a value without the properties its schema marks `writeOnly`. */
export type WriteOnlyStripper = (value: unknown) => unknown;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface Plan {
  /** Properties never answered. */
  hidden: Set<string>;
  /** Properties whose values hold hidden ones deeper down. */
  nested: Map<string, Plan>;
  /** The plan of an array's items, when they hold hidden properties. */
  items?: Plan;
}

/**
 * What of a schema is written and never read back (a signer's password, a card's number), down through properties,
 * allOf and array items; undefined when nothing is. A schema met again on the way (by its reference) stops the walk,
 * so a recursive schema (a folder of folders) ends.
 */
const planOf = (document: unknown, raw: unknown, seen: Set<unknown>): Plan | undefined => {
  const key = referenceOf(raw) ?? raw;
  if (seen.has(key) || seen.size > 64) {
    return undefined;
  }
  seen.add(key);
  const schema: Schema = flattenSchema(document, raw);
  const plan: Plan = { hidden: new Set(), nested: new Map() };
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
    const resolved = flattenSchema(document, property);
    if (resolved.writeOnly === true) {
      plan.hidden.add(name);
      continue;
    }
    const inner = planOf(document, property, seen);
    if (inner) {
      plan.nested.set(name, inner);
    }
  }
  if (schema.items !== undefined) {
    plan.items = planOf(document, schema.items, seen);
  }
  seen.delete(key);
  return plan.hidden.size > 0 || plan.nested.size > 0 || plan.items ? plan : undefined;
};

const strip = (plan: Plan, value: unknown): unknown => {
  if (Array.isArray(value)) {
    return plan.items ? value.map((item) => strip(plan.items as Plan, item)) : value;
  }
  if (!isPlainObject(value)) {
    return value;
  }
  const copy: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    if (plan.hidden.has(name)) {
      continue;
    }
    const inner = plan.nested.get(name);
    copy[name] = inner ? strip(inner, field) : field;
  }
  return copy;
};

/**
 * How an answer drops what its schema says is only ever written (OpenAPI's `writeOnly`): a record keeps what it was
 * sent, and its answers leave those properties out. Undefined when the schema has none, so most answers cost nothing.
 * Each record is stripped once: records never change, and their answers' JSON is cached by object.
 */
export const writeOnlyStripper = (document: unknown, schema: unknown): WriteOnlyStripper | undefined => {
  const plan = planOf(document, schema, new Set());
  if (!plan) {
    return undefined;
  }
  const stripped = new WeakMap<object, unknown>();
  return (value) => {
    if (typeof value !== 'object' || value === null) {
      return value;
    }
    let copy = stripped.get(value);
    if (copy === undefined) {
      copy = strip(plan, value);
      stripped.set(value, copy);
    }
    return copy;
  };
};
