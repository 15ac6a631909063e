import { DocumentValidators, flattenSchema, ResourceShape, Schema } from '@libs/openapi-schemas';
import {
  exampleValues,
  hashSeed,
  isCategoryField,
  isCreatedField,
  isUpdatedField,
  seededUuid,
  WorldRecord,
} from '@libs/synthetic-data';

import { EpisodeEvent } from './episode-events';
import { withNearestNumbers } from './exact-integers';
import { EpisodeState } from './episode-state';
import { ListEnvelope, PageLink } from './list-envelope';
import { OperationPlan } from './operation-plan';
import { ListFilter, listFilters, matchesFilters, recordFieldFor } from './list-filters';
import { linkHeader, Page, paginate, PaginationError, pageUrl } from './pagination';
import { inScope, scopedIds, scopeOf } from './record-scopes';
import { ValidRequest } from './request-validation';
import { ResponseFactory } from './response-factory';
import { envelopedJson, recordJson, SizedJson, sizedRecordJson, withField } from './record-json';
import { emptyResponse, jsonResponse, TwinResponse } from './twin-http';
import { WriteOnlyStripper, writeOnlyStripper } from './write-only-fields';

export interface CrudContext {
  plan: OperationPlan & { shape: ResourceShape };
  state: EpisodeState;
  request: ValidRequest;
  document: unknown;
  validators: DocumentValidators;
  responses: ResponseFactory;
  listEnvelope: (plan: OperationPlan) => ListEnvelope;
  /** The episode's simulated clock, ISO 8601. */
  now: string;
  seed: number;
  /** The request URL without its query, for `Link` headers and `next` URLs. */
  url: string;
  rawQuery: URLSearchParams;
  /**
   * What the caller may see, when the product scopes records by user (a supplier portal sees its own supplier's
   * orders): lists leave the rest out, and a get of one answers 404 as for a record that does not exist.
   */
  visible?: (tableKey: string, record: WorldRecord) => boolean;
}

const seen = (context: CrudContext, key: string, record: unknown): boolean =>
  record !== undefined && (!context.visible || context.visible(key, record as WorldRecord));

export interface Outcome {
  response: TwinResponse;
  events: EpisodeEvent[];
  /** What the twin made up for this write (a create's filled-in fields): synthetic, so its redaction keeps it. */
  made?: unknown;
}

/** Whether a behaviour's intermediate result is already its answer (an error found on the way). */
export const isOutcome = (value: unknown): value is Outcome =>
  typeof value === 'object' && value !== null && 'response' in value && 'events' in value;

/** Path values are text coerced to numbers or booleans by their schema; ids compare as text. */
const asText = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';

const notFound = (context: CrudContext, what: string): Outcome => ({
  response: context.responses.error(context.plan, 404, 'not_found', what),
  events: [],
});

/** `/suppliers/{supplierId}/contacts`: the parent id comes from the last path parameter before the collection. */
const parentIdOf = (context: CrudContext): string | undefined => {
  const parameter = context.plan.shape.resource.collectionPath.match(/\{([^}]+)\}(?!.*\{)/)?.[1];
  const value = parameter ? context.request.path[parameter] : undefined;
  return value === undefined ? undefined : asText(value);
};

/**
 * The parent a request works under: the parent resource's record (404 when there is none), or for a nested collection
 * without a parent resource, its scope (the collection path's parameters, see record-scopes).
 */
const checkParent = (context: CrudContext): Outcome | string | undefined => {
  const parentShape = context.plan.parentShape;
  if (!parentShape) {
    return scopeOf(context.plan.shape, context.request.path);
  }
  const parentId = parentIdOf(context);
  if (parentId === undefined || !seen(context, parentShape.key, context.state.get(parentShape.key, parentId))) {
    return notFound(context, `no ${parentShape.resource.name} with id ${parentId ?? '?'}`);
  }
  return parentId;
};

/** The template of an envelope without its record field, and that rest's JSON, computed once per operation. */
/** Per template, per envelope field: one template may be read with two fields (a record under `droplet`, an action's). */
const envelopeRest = new WeakMap<object, Map<string, { rest: Record<string, unknown>; json: string }>>();

export const restOf = (
  template: Record<string, unknown>,
  field: string,
): { rest: Record<string, unknown>; json: string } => {
  let byField = envelopeRest.get(template);
  if (!byField) {
    byField = new Map();
    envelopeRest.set(template, byField);
  }
  let cached = byField.get(field);
  if (!cached) {
    const { [field]: _omitted, ...rest } = template;
    cached = { rest, json: JSON.stringify(rest) };
    byField.set(field, cached);
  }
  return cached;
};

/**
 * Some specs describe one resource with several schemas (a create response that requires fields the read schema
 * lacks, list items that differ from the record). Records follow the read schema; where an operation's own item
 * schema disagrees (checked once, on the first record it answers), the record is laid over a synthesized value of
 * that schema so the answer conforms, keeping every field of the record that is valid there.
 */
interface ItemFit {
  schema: Schema;
  fits: boolean;
  /** Drops the properties the schema only takes in (`writeOnly`), when it has any. */
  hide?: WriteOnlyStripper;
}

const fits = new WeakMap<object, ItemFit>();

const itemSchemaOf = (context: CrudContext, list: boolean): Schema | undefined => {
  const pointer = context.plan.successSchemaPointer;
  if (!pointer) {
    return undefined;
  }
  const response = flattenSchema(context.document, { $ref: `#${pointer}` });
  const { shape } = context.plan;
  if (list) {
    const array = shape.listField
      ? flattenSchema(context.document, (response.properties as Record<string, unknown> | undefined)?.[shape.listField])
      : response;
    return array.items ? flattenSchema(context.document, array.items) : undefined;
  }
  if (!shape.itemEnvelope) {
    return response;
  }
  const held = flattenSchema(
    context.document,
    (response.properties as Record<string, unknown> | undefined)?.[shape.itemEnvelope],
  );
  return shape.itemEnvelopeIsArray ? flattenSchema(context.document, held.items ?? {}) : held;
};

const conform = (context: CrudContext, record: WorldRecord, list: boolean): WorldRecord => {
  let fit = fits.get(context.plan);
  if (!fit) {
    const schema = itemSchemaOf(context, list) ?? {};
    const hide = writeOnlyStripper(context.document, schema);
    fit = {
      schema,
      fits: context.validators.validatorForSchema(schema)(withNearestNumbers(record)),
      ...(hide ? { hide } : {}),
    };
    fits.set(context.plan, fit);
  }
  const answered = fit.fits ? record : layOver(context, fit.schema, record);
  return fit.hide ? (fit.hide(answered) as WorldRecord) : answered;
};

/** A record laid over a value synthesized for `schema`, keeping every field of the record that is valid there. */
export const layOver = (
  context: Pick<CrudContext, 'responses' | 'validators' | 'seed'> & { plan: OperationPlan },
  schema: Schema,
  record: WorldRecord,
): WorldRecord => {
  const template = context.responses.synthesizeSchema(
    schema,
    hashSeed(context.seed, context.plan.operation.id, 'item'),
  ) as WorldRecord;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const merged: WorldRecord = { ...template };
  for (const [field, value] of Object.entries(record)) {
    if (!(field in properties) || context.validators.validatorForSchema(properties[field])(withNearestNumbers(value))) {
      merged[field] = value;
    }
  }
  return merged;
};

/** A record as the operation answers it: bare, or inside its envelope (`{ "droplet": … }`), value and JSON. */
const wrap = (context: CrudContext, stored: WorldRecord): { body: unknown; json: SizedJson } => {
  const record = conform(context, stored, false);
  const envelope = context.plan.shape.itemEnvelope;
  if (!envelope || !context.plan.successSchemaPointer) {
    return { body: record, json: sizedRecordJson(record) };
  }
  if (context.plan.shape.itemEnvelopeIsArray) {
    return wrapAll(context, [stored]);
  }
  const template = context.responses.template(context.plan.successSchemaPointer, 'envelope', envelope) as Record<
    string,
    unknown
  >;
  const { rest, json } = restOf(template, envelope);
  return { body: { ...rest, [envelope]: record }, json: envelopedJson(record, json, envelope) };
};

/** Records inside a bulk wrapper (`{ "Contacts": [ … ] }`), as a bulk create or a read answers them. */
const wrapAll = (context: CrudContext, stored: WorldRecord[]): { body: unknown; json: SizedJson } => {
  const records = stored.map((record) => conform(context, record, false));
  const envelope = context.plan.shape.itemEnvelope as string;
  const template = context.plan.successSchemaPointer
    ? (context.responses.template(context.plan.successSchemaPointer, 'envelope', envelope) as Record<string, unknown>)
    : {};
  const { rest, json } = restOf(template, envelope);
  const text = withField(json, envelope, `[${records.map(recordJson).join(',')}]`);
  return { body: { ...rest, [envelope]: records }, json: { text, bytes: Buffer.byteLength(text) } };
};

const success = (context: CrudContext, body: unknown, json?: string | SizedJson): TwinResponse =>
  context.plan.successStatus === 204 || !context.plan.successSchemaPointer
    ? emptyResponse(context.plan.successStatus)
    : {
        ...jsonResponse(context.plan.successStatus, body, {
          'content-type': context.plan.successMediaType ?? 'application/json',
        }),
        ...(typeof json === 'string' ? { text: json } : json ? { text: json.text, textBytes: json.bytes } : {}),
      };

const wrapped = (context: CrudContext, record: WorldRecord): TwinResponse => {
  const { body, json } = wrap(context, record);
  return success(context, body, json);
};

const filtersOf = (context: CrudContext): ListFilter[] =>
  listFilters(
    context.request.query,
    context.plan.operation.parameters,
    context.plan.shape.record,
    new Set(Object.values(context.plan.shape.resource.pagination.parameters)),
    context.document,
    context.validators,
  );

export const listRecords = (context: CrudContext): Outcome => {
  const parent = checkParent(context);
  if (parent !== undefined && typeof parent !== 'string') {
    return parent;
  }
  const { shape } = context.plan;
  const filters = filtersOf(context);
  let ids =
    parent !== undefined && !context.plan.parentShape
      ? scopedIds(context.state, shape, context.seed, parent)
      : context.state.ids(shape.key, parent);
  if (context.visible) {
    ids = ids.filter((id) => seen(context, shape.key, context.state.get(shape.key, id)));
  }
  if (filters.length > 0) {
    ids = ids.filter((id) => matchesFilters(context.state.get(shape.key, id) as WorldRecord, filters));
  }
  let page: Page;
  try {
    page = paginate(ids, shape.resource.pagination, context.request.query, defaultPageSize(context));
  } catch (error) {
    if (error instanceof PaginationError) {
      return { response: context.responses.error(context.plan, 400, 'invalid_cursor', error.message), events: [] };
    }
    throw error;
  }
  const records = page.ids.map((id) => conform(context, context.state.get(shape.key, id) as WorldRecord, true));
  const recordsText = `[${records.map(recordJson).join(',')}]`;
  const { pagination } = shape.resource;
  const linkTo: PageLink = (target) => pageUrl(pagination, context.url, context.rawQuery, page, target);
  const link =
    pagination.linkHeader || pagination.style === 'link-header'
      ? linkHeader(pagination, context.url, context.rawQuery, page)
      : undefined;
  const headers: Record<string, string> = link ? { link } : {};
  if (!shape.listField || !context.plan.successSchemaPointer) {
    const response = success(context, records, recordsText);
    return { response: { ...response, headers: { ...response.headers, ...headers } }, events: [] };
  }
  // The template without its page of records is small: copying it per request keeps the setters' writes private.
  const template = context.responses.template(context.plan.successSchemaPointer, 'list', shape.listField) as Record<
    string,
    unknown
  >;
  const envelope = structuredClone(restOf(template, shape.listField).rest);
  for (const setter of context.listEnvelope(context.plan).setters) {
    setter(envelope, page, linkTo);
  }
  const response = success(
    context,
    { ...envelope, [shape.listField]: records },
    withField(JSON.stringify(envelope), shape.listField, recordsText),
  );
  return { response: { ...response, headers: { ...response.headers, ...headers } }, events: [] };
};

const defaultPageSize = (context: CrudContext): number => {
  const limit = context.plan.parameters.find((p) => p.name === context.plan.shape.resource.pagination.parameters.limit);
  const schema = limit?.schema ? flattenSchema(context.document, limit.schema) : {};
  return typeof schema.default === 'number' && schema.default > 0 ? schema.default : 20;
};

const findRecord = (context: CrudContext): { id: string; record: WorldRecord } | Outcome => {
  const parent = checkParent(context);
  if (parent !== undefined && typeof parent !== 'string') {
    return parent;
  }
  const { shape } = context.plan;
  const raw = shape.resource.idParameter ? context.request.path[shape.resource.idParameter] : undefined;
  const id = asText(raw);
  const record = context.state.get(shape.key, id);
  if (
    !record ||
    !seen(context, shape.key, record) ||
    (parent !== undefined &&
      (context.plan.parentShape
        ? context.state.parentOf(shape.key, id) !== parent
        : !inScope(context.state, shape, context.seed, parent, id)))
  ) {
    return notFound(context, `no ${shape.resource.name} with id ${id}`);
  }
  return { id, record };
};

export const getRecord = (context: CrudContext): Outcome => {
  const found = findRecord(context);
  return 'response' in found ? found : { response: wrapped(context, found.record), events: [] };
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A body field is taken into the record only when it is valid where the record keeps it (requests and records differ).
 * A request often names a nested object by less than the record keeps of it (a grantee by `{type, login}` where the
 * record holds `{type, id, name, login}`): then what the caller said goes over what the record had, when that is valid.
 */
const acceptedFields = (
  context: CrudContext,
  body: unknown,
  current: Record<string, unknown> = {},
): Record<string, unknown> => {
  const { shape } = context.plan;
  let fields = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  fields = unwrapped(context, fields);
  const properties = (shape.record.properties ?? {}) as Record<string, Schema>;
  const accepted: Record<string, unknown> = {};
  for (const [sent, value] of Object.entries(fields)) {
    const name = recordFieldFor(sent, properties);
    if (name === undefined || name === shape.idField) {
      continue;
    }
    try {
      const validSchema = context.validators.validatorForSchema(properties[name]);
      const valid = (candidate: unknown): boolean => validSchema(withNearestNumbers(candidate));
      const merged = isPlainObject(value) && isPlainObject(current[name]) ? { ...current[name], ...value } : undefined;
      if (valid(value)) {
        accepted[name] = value;
      } else if (merged && valid(merged)) {
        accepted[name] = merged;
      }
    } catch {
      // A property schema ajv cannot compile is never written from a request.
    }
  }
  return accepted;
};

/** What the server fills in when the client leaves a field out: the spec's `default`s, as a real API would. */
const schemaDefaults = (context: CrudContext): Record<string, unknown> => {
  const properties = (context.plan.shape.record.properties ?? {}) as Record<string, unknown>;
  const defaults: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(properties)) {
    const property = flattenSchema(context.document, raw);
    if (property.default !== undefined) {
      defaults[name] = structuredClone(property.default);
    }
  }
  return defaults;
};

/**
 * Where a new record starts: a category field the client left out (an enum, a `status` or `kind`) takes the spec's
 * example of it, the documented value a client expects of a new ticket (`open`), rather than whichever member a
 * world record drew (a ticket created `closed`). The world's records keep their spread of values.
 */
const exampleStates = (context: CrudContext): Record<string, unknown> => {
  const properties = (context.plan.shape.record.properties ?? {}) as Record<string, unknown>;
  const states: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(properties)) {
    const property = flattenSchema(context.document, raw);
    const members = Array.isArray(property.enum) ? (property.enum as unknown[]) : undefined;
    if (!members && !isCategoryField(name)) {
      continue;
    }
    // OpenAPI 3.1 lets a `$ref` carry its own example beside it: that use's example first.
    const examples = [...(isPlainObject(raw) ? exampleValues(raw) : []), ...exampleValues(property)];
    const fits = (value: unknown): boolean => {
      try {
        return context.validators.validatorForSchema(property)(value);
      } catch {
        return false;
      }
    };
    const example = examples.find(
      (value) =>
        ['string', 'number', 'boolean'].includes(typeof value) &&
        (!members || members.some((m) => m === value)) &&
        fits(value),
    );
    if (example !== undefined) {
      states[name] = example;
    }
  }
  return states;
};

const stamp = (context: CrudContext, record: WorldRecord, created: boolean): void => {
  const properties = (context.plan.shape.record.properties ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(properties)) {
    if (!(created ? isCreatedField(name) || isUpdatedField(name) : isUpdatedField(name))) {
      continue;
    }
    const property = flattenSchema(context.document, properties[name]);
    if (
      property.format === 'date-time' ||
      (property.format === undefined && typeof record[name] === 'string' && /T\d\d:/.test(String(record[name])))
    ) {
      record[name] = context.now;
    } else if (property.format === 'date') {
      record[name] = context.now.slice(0, 10);
    }
  }
};

/** A body's record, past the resource's envelope: `{ "droplet": {…} }`, or the one record of `{ "Contacts": [{…}] }`. */
const unwrapped = (context: CrudContext, fields: Record<string, unknown>): Record<string, unknown> => {
  const envelope = context.plan.shape.itemEnvelope;
  const held = envelope && Object.keys(fields).length === 1 ? fields[envelope] : undefined;
  if (isPlainObject(held)) {
    return held;
  }
  return Array.isArray(held) && held.length === 1 && isPlainObject(held[0]) ? held[0] : fields;
};

/** The records a create's body holds: each of a bulk wrapper's, or the body itself. */
const createdBodies = (context: CrudContext): unknown[] => {
  const { itemEnvelope, itemEnvelopeIsArray } = context.plan.shape;
  const body = context.request.body;
  const held = itemEnvelope && itemEnvelopeIsArray && isPlainObject(body) ? body[itemEnvelope] : undefined;
  return Array.isArray(held) && held.length > 0 && held.every(isPlainObject) ? held : [body];
};

/** The value at a dotted path of a request body (`metadata.name`). */
const valueAt = (body: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (isPlainObject(value) ? value[key] : undefined), body);

/** The id a client gave the new record in its body, when the resource's ids are the client's to choose. */
const clientIdOf = (context: CrudContext, body: unknown): string | number | undefined => {
  const field = context.plan.shape.clientIdField;
  if (!field) {
    return undefined;
  }
  const value = valueAt(isPlainObject(body) ? unwrapped(context, body) : body, field);
  return (typeof value === 'string' && value !== '') || typeof value === 'number' ? value : undefined;
};

/** A second create with a taken id: the spec's 409, or the validation status it declares instead. */
const conflict = (context: CrudContext, id: string): Outcome => {
  const declared = new Set(context.plan.operation.responses.map((r) => r.status));
  const status = declared.has('409')
    ? 409
    : declared.has('422') && !declared.has('400')
      ? 422
      : declared.has('400')
        ? 400
        : 409;
  return {
    response: context.responses.error(
      context.plan,
      status,
      'already_exists',
      `a ${context.plan.shape.resource.name} with id ${id} already exists`,
    ),
    events: [],
  };
};

/** Where a created record now lives: the item path with the request's own parent values and the new id. */
const locationOf = (context: CrudContext, id: string): string | undefined => {
  const { resource } = context.plan.shape;
  if (!resource.itemPath || !resource.idParameter) {
    return undefined;
  }
  const fill = (template: string, extra: Record<string, string>): string =>
    template.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(extra[name] ?? asText(context.request.path[name])),
    );
  const collection = fill(resource.collectionPath, {});
  const base = context.url.endsWith(collection) ? context.url.slice(0, context.url.length - collection.length) : '';
  return `${base}${fill(resource.itemPath, { [resource.idParameter]: id })}`;
};

export const createRecord = (context: CrudContext): Outcome => {
  const parent = checkParent(context);
  if (parent !== undefined && typeof parent !== 'string') {
    return parent;
  }
  const { shape } = context.plan;
  const bodies = createdBodies(context);
  const clientIds = bodies.map((body) => clientIdOf(context, body));
  const taken = clientIds.find(
    (id, index) => id !== undefined && (context.state.get(shape.key, String(id)) || clientIds.indexOf(id) !== index),
  );
  if (taken !== undefined) {
    return conflict(context, String(taken));
  }
  const made = bodies.map((body, index) => createOne(context, body, clientIds[index], parent));
  const records = made.map(({ record }) => record);
  const answer =
    shape.itemEnvelopeIsArray && context.plan.successSchemaPointer
      ? wrapAll(context, records)
      : wrap(context, records[0]);
  const response = success(context, answer.body, answer.json);
  const location = context.plan.successLocation && made.length === 1 ? locationOf(context, made[0].id) : undefined;
  return {
    response: location ? { ...response, headers: { ...response.headers, location } } : response,
    made: made.map(({ filled }) => filled),
    events: made.map(({ id, record }) => ({
      type: 'record.created' as const,
      table: shape.key,
      id,
      ...(parent !== undefined ? { parentId: parent } : {}),
      record,
    })),
  };
};

/** One new record from one body: the client's fields over a synthesized record, with its new id. */
const createOne = (
  context: CrudContext,
  body: unknown,
  clientId: string | number | undefined,
  parent: string | undefined,
): { id: string; record: WorldRecord; filled: WorldRecord } => {
  const { shape } = context.plan;
  const counter = context.state.nextCounter(shape.key);
  const seed = hashSeed(context.seed, shape.key, 'created', counter);
  const synthesized = {
    ...(context.responses.synthesizeSchema(shape.record, seed) as WorldRecord),
    ...exampleStates(context),
    ...schemaDefaults(context),
  };
  const accepted = acceptedFields(context, body, synthesized);
  const record = { ...synthesized, ...accepted };
  const filled = Object.fromEntries(Object.entries(synthesized).filter(([name]) => !Object.hasOwn(accepted, name)));
  const worldSize = context.state.table(shape.key)?.ids.length ?? 0;
  let id: string | number;
  switch (clientId === undefined ? shape.idKind : 'client') {
    case 'client':
      id = clientId as string | number;
      break;
    case 'integer':
      id = worldSize + counter;
      break;
    case 'uuid':
      id = seededUuid(seed);
      break;
    default: {
      const made = shape.idSchema ? context.responses.synthesizeSchema(shape.idSchema, seed) : undefined;
      if (typeof made === 'string' && made !== '') {
        id = made;
        break;
      }
      const existing = record[shape.idField];
      const idSchema = flattenSchema(
        context.document,
        (shape.record.properties as Record<string, unknown> | undefined)?.[shape.idField] ?? {},
      );
      id =
        typeof existing === 'string' && (idSchema.pattern || idSchema.format)
          ? existing
          : `${shape.resource.name.split('.').pop()?.slice(0, 3).toLowerCase()}_new${counter}`;
    }
  }
  while (context.state.get(shape.key, String(id))) {
    id = typeof id === 'number' ? id + 1 : `${id}_${counter}`;
  }
  if (shape.clientIdField?.includes('.')) {
    // The id lives inside the record (`metadata.name`); a top-level id field only where the record declares one.
    const [holder, field] = shape.clientIdField.split('.');
    record[holder] = { ...(isPlainObject(record[holder]) ? record[holder] : {}), [field]: id };
    if (shape.idField in ((shape.record.properties ?? {}) as Record<string, unknown>)) {
      record[shape.idField] = id;
    }
  } else {
    record[shape.idField] = id;
  }
  if (parent !== undefined && shape.parentField && context.plan.parentShape) {
    record[shape.parentField] =
      context.state.get(context.plan.parentShape.key, parent)?.[context.plan.parentShape.idField] ?? parent;
  }
  stamp(context, record, true);
  return { id: String(id), record, filled };
};

export const changeRecord = (context: CrudContext, kind: 'record.replaced' | 'record.updated'): Outcome => {
  const found = findRecord(context);
  if ('response' in found) {
    return found;
  }
  const record: WorldRecord = { ...found.record, ...acceptedFields(context, context.request.body, found.record) };
  stamp(context, record, false);
  return {
    response: wrapped(context, record),
    events: [{ type: kind, table: context.plan.shape.key, id: found.id, record }],
  };
};

export const deleteRecord = (context: CrudContext): Outcome => {
  const found = findRecord(context);
  if ('response' in found) {
    return found;
  }
  const body = context.plan.successSchemaPointer
    ? context.responses.synthesize(context.plan.successSchemaPointer, 'deleted')
    : undefined;
  return {
    response: success(context, body),
    events: [{ type: 'record.deleted', table: context.plan.shape.key, id: found.id }],
  };
};
