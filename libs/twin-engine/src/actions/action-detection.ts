import { flattenSchema, resolveSchema, ResourceShape, Schema, schemaTypes } from '@libs/openapi-schemas';
import type { ServiceModel } from '@libs/stack-ingestion';

import { OperationPlan } from '../operation-plan';
import { normalState, restoredVerb, reversedVerb, statesOfVerb, wordsOf } from './verb-forms';

/**
 * An operation on a sub-path of a resource's item path (`POST /tickets/{id}/escalate`): it acts on one stored record,
 * which must exist, and changes it as far as the spec shows how.
 */
export interface ItemAction {
  /** The action's own plan, as an update of the item's resource: CRUD reads the item and shapes the answer by it. */
  plan: OperationPlan & { shape: ResourceShape };
  /** The path's last static segment (`escalate`), or undefined when only the body names the verb. */
  verb?: string;
  /** The body field that names the verb (`{ "type": "power_off" }`), when the path does not. */
  verbField?: string;
  /** The item's and its collection's path parameter names, from the action's own by position. */
  pathNames: Map<string, string>;
  /** The record values the action's response example shows for state-like fields (enums, booleans). */
  exampleChanges: Record<string, unknown>;
  /** A state value the operation's description names, when it names exactly one: the fallback to the verb. */
  describedChanges: Record<string, unknown>;
  /** True when the operation also creates a record of a child resource (`POST /droplets/{id}/actions`). */
  childCreate: boolean;
  /**
   * Whether the action's success response is the item (bare or in its envelope, or nothing): then it answers with the
   * stored record; otherwise (a restart that answers a deployment) with the spec's own answer, after the change.
   */
  answersRecord: boolean;
}

const template = (path: string): string => path.split('#')[0].replace(/\{[^{}]+\}/g, '{}');
const parametersOf = (path: string): string[] => [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]);

const stateLike = /(^|_)(status|state|stage|phase|lifecycle)$/i;
const verbFieldNames = ['type', 'action', 'kind', 'operation', 'command', 'event'];

const propertiesOf = (shape: ResourceShape): Record<string, unknown> =>
  (shape.record.properties ?? {}) as Record<string, unknown>;

/** The string values a field may take, through `anyOf`/`oneOf` branches (a nullable enum) and `const`s. */
export const enumValues = (document: unknown, schema: unknown, depth = 0): string[] => {
  const flat = flattenSchema(document, schema);
  const own = [...asArray(flat.enum), ...(flat.const !== undefined ? [flat.const] : [])];
  const branches = depth < 4 ? [...asArray(flat.anyOf), ...asArray(flat.oneOf)] : [];
  return [
    ...new Set([
      ...own.filter((v): v is string => typeof v === 'string'),
      ...branches.flatMap((b) => enumValues(document, b, depth + 1)),
    ]),
  ];
};

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const isBoolean = (document: unknown, schema: unknown): boolean => {
  const flat = flattenSchema(document, schema);
  return (
    schemaTypes(flat).includes('boolean') ||
    [...asArray(flat.anyOf), ...asArray(flat.oneOf)].some((b) => isBoolean(document, b))
  );
};

const isTime = (document: unknown, schema: unknown): 'date-time' | 'date' | undefined => {
  const flat = flattenSchema(document, schema);
  const formats = [
    flat,
    ...[...asArray(flat.anyOf), ...asArray(flat.oneOf)].map((b) => flattenSchema(document, b)),
  ].map((s) => s.format);
  return formats.includes('date-time') ? 'date-time' : formats.includes('date') ? 'date' : undefined;
};

export interface StateChange {
  /** Fields set to a fixed value (an enum's state, a flag). */
  values: Record<string, unknown>;
  /** Fields set to the episode's clock (`closed_at`), by the format they take. */
  times: Record<string, 'date-time' | 'date'>;
}

/**
 * What doing `verb` to a record of `shape` changes, read from its schema: an enum field (state-like names first) whose
 * value is the verb's state (`confirm` → `confirmed`), a flag named for the state (`archived: true`; `unarchive` sets
 * it false), and the time it happened (`closed_at`).
 */
export const stateChangeOf = (document: unknown, shape: ResourceShape, verb: string): StateChange => {
  const words = wordsOf(verb);
  const whole = words.join('_');
  const last = words[words.length - 1] ?? '';
  const reversed = reversedVerb(whole);
  const restored = restoredVerb(whole);
  const states = new Set([
    ...statesOfVerb(whole),
    ...(words.length > 1 ? statesOfVerb(last) : []),
    ...(restored ? statesOfVerb(restored) : []),
  ]);
  const undone = reversed ? statesOfVerb(reversed) : new Set<string>();
  const values: Record<string, unknown> = {};
  const times: StateChange['times'] = {};
  const candidates: [string, string][] = [];
  for (const [field, schema] of Object.entries(propertiesOf(shape))) {
    if (field === shape.idField || field === shape.parentField) {
      continue;
    }
    const value = enumValues(document, schema).find((v) => states.has(normalState(v)));
    if (value !== undefined) {
      candidates.push([field, value]);
    }
    const flag = normalState(field).replace(/^(is|has_been|has)_/, '');
    if (isBoolean(document, schema)) {
      if (states.has(flag) && !reversed) {
        values[field] = true;
      } else if (undone.has(flag)) {
        values[field] = false;
      }
    }
    const timed = /^(.+)_(at|on|date|time|timestamp)$/.exec(normalState(field))?.[1];
    const format = isTime(document, schema);
    if (timed && format && states.has(timed) && !reversed) {
      times[field] = format;
    }
  }
  const preferred = candidates.filter(([field]) => stateLike.test(normalState(field)));
  for (const [field, value] of preferred.length > 0 ? preferred : candidates) {
    values[field] = value;
  }
  return { values, times };
};

/** The response example of the action, unwrapped from the item's envelope: what the spec shows an answer to hold. */
const exampleOf = (document: unknown, plan: OperationPlan, shape: ResourceShape): Record<string, unknown> => {
  const operation = pointerValue(document, plan.operation.pointer);
  const responses = isObject(operation) ? resolveSchema(document, operation.responses) : {};
  const response = resolveSchema(document, responses[String(plan.successStatus)]);
  const content = isObject(response.content) ? response.content : {};
  const media = resolveSchema(document, content[plan.successMediaType ?? '']);
  const firstExample = Object.values(resolveSchema(document, media.examples))
    .map((example) => resolveSchema(document, example).value)
    .find((value) => value !== undefined);
  const schemaExample = plan.successSchemaPointer
    ? flattenSchema(document, { $ref: `#${plan.successSchemaPointer}` }).example
    : undefined;
  let example = media.example ?? firstExample ?? schemaExample;
  if (shape.itemEnvelope && isObject(example) && isObject(example[shape.itemEnvelope])) {
    example = example[shape.itemEnvelope];
  }
  return isObject(example) ? example : {};
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const pointerValue = (document: unknown, pointer: string): unknown =>
  pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((at, key) => (isObject(at) ? at[key] : undefined), document);

/** Example values of state-like fields (enums, flags) that are valid states of the record's schema. */
const exampleChangesOf = (document: unknown, plan: OperationPlan, shape: ResourceShape): Record<string, unknown> => {
  const example = exampleOf(document, plan, shape);
  const properties = propertiesOf(shape);
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(example)) {
    if (field === shape.idField || field === shape.parentField || !(field in properties)) {
      continue;
    }
    const allowed = enumValues(document, properties[field]);
    if (
      (typeof value === 'string' && allowed.includes(value)) ||
      (typeof value === 'boolean' && isBoolean(document, properties[field]))
    ) {
      changes[field] = value;
    }
  }
  return changes;
};

/** The one state value of a state-like field that the operation's summary or description names, if exactly one. */
const describedChangesOf = (document: unknown, plan: OperationPlan, shape: ResourceShape): Record<string, unknown> => {
  const operation = pointerValue(document, plan.operation.pointer) as Record<string, unknown> | undefined;
  const text = [operation?.summary, operation?.description].filter((t) => typeof t === 'string').join(' ');
  if (!text) {
    return {};
  }
  const named: [string, string][] = [];
  for (const [field, schema] of Object.entries(propertiesOf(shape))) {
    if (!stateLike.test(normalState(field))) {
      continue;
    }
    for (const value of enumValues(document, schema)) {
      const word = new RegExp(`(^|[^A-Za-z0-9_-])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_-])`);
      if (word.test(text)) {
        named.push([field, value]);
      }
    }
  }
  return named.length === 1 ? { [named[0][0]]: named[0][1] } : {};
};

/** A response is the record when it holds the item's envelope, or most of the record's fields and its id. */
const answersRecordOf = (document: unknown, plan: OperationPlan, shape: ResourceShape): boolean => {
  if (!plan.successSchemaPointer || plan.successStatus === 204) {
    return true;
  }
  if (plan.successSchemaPointer === shape.resource.schemaPointer) {
    return true;
  }
  const response = flattenSchema(document, { $ref: `#${plan.successSchemaPointer}` });
  const properties = Object.keys(response.properties ?? {});
  if (shape.itemEnvelope) {
    return properties.includes(shape.itemEnvelope);
  }
  const own = Object.keys(propertiesOf(shape));
  const shared = own.filter((field) => properties.includes(field)).length;
  return properties.includes(shape.idField) && shared * 5 >= own.length * 3;
};

/** The body field whose value is the verb, when the request body has one (a required string, or an enum). */
const verbFieldOf = (document: unknown, plan: OperationPlan): string | undefined => {
  const pointer = Object.entries(plan.operation.requestBody?.content ?? {}).find(([type]) =>
    /json|form/i.test(type),
  )?.[1];
  if (!pointer) {
    return undefined;
  }
  // A body of alternatives (one per kind of action, as DigitalOcean's droplet actions) names the verb in each.
  const body = flattenSchema(document, { $ref: `#${pointer}` });
  const variants = [body, ...[...asArray(body.oneOf), ...asArray(body.anyOf)].map((b) => flattenSchema(document, b))];
  return verbFieldNames.find((name) =>
    variants.some((variant) => {
      const raw = ((variant.properties ?? {}) as Record<string, Schema>)[name];
      const property = raw ? flattenSchema(document, raw) : undefined;
      const required = asArray(variant.required).map(String).includes(name);
      return (
        property !== undefined &&
        schemaTypes(property).includes('string') &&
        (required || enumValues(document, property).length > 0)
      );
    }),
  );
};

const writeMethods = new Set(['post', 'put', 'patch']);

/**
 * Finds the item actions of a service: writes whose path is an item path of an inferred resource followed by static
 * segments only. The deepest item path wins (`/a/{a}/b/{b}/do` acts on a `b`). Operations CRUD already answers are
 * left to it, except a child resource's create whose parent's state the body's verb changes.
 */
export const detectActions = (
  service: ServiceModel,
  shapes: ResourceShape[],
  plans: OperationPlan[],
): Map<number, ItemAction> => {
  const document = service.document;
  const items = shapes
    .filter((s) => s.resource.itemPath !== undefined)
    .map((shape) => ({ shape, prefix: `${template(shape.resource.itemPath as string)}/` }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const byName = new Map(shapes.map((s) => [s.resource.name, s]));
  const actions = new Map<number, ItemAction>();
  for (const plan of plans) {
    if (!writeMethods.has(plan.operation.method)) {
      continue;
    }
    const path = plan.operation.path.split('#')[0];
    const found = items.find(({ prefix }) => template(path).startsWith(prefix));
    if (!found) {
      continue;
    }
    const rest = template(path).slice(found.prefix.length).split('/').filter(Boolean);
    if (rest.length === 0 || rest.some((segment) => segment.includes('{}'))) {
      continue;
    }
    const childCreate = plan.role === 'create' && plan.shape?.resource.parent === found.shape.resource.name;
    if (plan.role && !childCreate) {
      continue;
    }
    const { shape } = found;
    const verbField = verbFieldOf(document, plan);
    // A child collection's name is not a verb (`/droplets/{id}/actions`): its body says what is done.
    const verb = childCreate ? undefined : rest[rest.length - 1];
    if (childCreate && !verbField) {
      continue;
    }
    const own = parametersOf(path);
    const pathNames = new Map<string, string>();
    for (const names of [
      parametersOf(shape.resource.itemPath as string),
      parametersOf(shape.resource.collectionPath),
    ]) {
      names.forEach((name, index) => {
        if (own[index] !== undefined) {
          pathNames.set(name, own[index]);
        }
      });
    }
    const parentShape = shape.resource.parent ? byName.get(shape.resource.parent) : undefined;
    const actionPlan: ItemAction['plan'] = {
      ...plan,
      role: 'update',
      shape,
      ...(parentShape ? { parentShape } : {}),
    };
    const answersRecord = answersRecordOf(document, actionPlan, shape);
    // CRUD shapes an answer by the plan's response schema; an action that answers something else must not have its
    // schema read as the item's envelope (the spec's own answer is given instead).
    const { successSchemaPointer: _answered, ...unshaped } = actionPlan;
    actions.set(plan.index, {
      plan: answersRecord ? actionPlan : unshaped,
      ...(verb !== undefined ? { verb } : {}),
      ...(verbField ? { verbField } : {}),
      pathNames,
      exampleChanges: childCreate ? {} : exampleChangesOf(document, actionPlan, shape),
      describedChanges: describedChangesOf(document, actionPlan, shape),
      childCreate,
      answersRecord,
    });
  }
  return actions;
};
