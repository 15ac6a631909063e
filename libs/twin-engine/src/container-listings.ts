import { flattenSchema, ResourceShape, Schema, schemaTypes } from '@libs/openapi-schemas';
import { canonicalName, detectOperationPagination, OperationModel, PaginationModel } from '@libs/stack-ingestion';
import type { WorldRecord } from '@libs/synthetic-data';

import { CrudContext, layOver, Outcome, restOf } from './crud-behaviour';
import { ListEnvelope, PageLink, planListEnvelope } from './list-envelope';
import type { OperationPlan } from './operation-plan';
import { linkHeader, Page, paginate, PaginationError, pageUrl } from './pagination';
import { recordJson, withField } from './record-json';
import { jsonResponse } from './twin-http';

/**
 * A listing of what a record contains that has no resource of its own: `GET /folders/{id}/items` answers the files,
 * folders and links whose `parent` is that folder. Nothing in its path says so; its schema does. The listing's items
 * are (branches of) records of other resources, and each of those records names its container in an object field that
 * describes the container's own records. Worked out once per operation from the spec; no vendor's names.
 */
export interface ContainerMember {
  shape: ResourceShape;
  /** The record field holding the container (`parent`: an object with the container's id). */
  field: string;
  /** The listing's schema for this kind of item (a branch of its `oneOf`), which answered records must fit. */
  itemSchema: Schema;
}

export interface ContainerListing {
  container: ResourceShape;
  /** The path parameter naming the container (its item path's id parameter). */
  parameter: string;
  members: ContainerMember[];
  /** The list response's array property; undefined when the body is the array. */
  listField?: string;
  listSchema: Schema;
  pagination: PaginationModel;
}

const propertiesOf = (schema: Schema): Record<string, unknown> => (schema.properties ?? {}) as Record<string, unknown>;

/** The values a property is fixed to (`enum`, `const`), or undefined when it is free. */
const fixedValues = (document: unknown, schema: unknown): unknown[] | undefined => {
  const flat = flattenSchema(document, schema);
  return 'const' in flat ? [flat.const] : Array.isArray(flat.enum) ? flat.enum : undefined;
};

/**
 * Whether `part` describes a view of records shaped by `whole`: every property of the part is one of the whole's, and
 * every property the part fixes (`type: folder`) the whole fixes to a value in common. `discriminated` says whether the
 * part fixed any, which is what tells a folder from a file when both have `id` and `name`.
 */
const describes = (document: unknown, part: Schema, whole: Schema): { fits: boolean; discriminated: boolean } => {
  const own = propertiesOf(part);
  const theirs = propertiesOf(whole);
  let discriminated = false;
  for (const [name, schema] of Object.entries(own)) {
    if (!(name in theirs)) {
      return { fits: false, discriminated };
    }
    const fixed = fixedValues(document, schema);
    if (fixed) {
      const other = fixedValues(document, theirs[name]);
      if (!other || !fixed.some((value) => other.some((o) => JSON.stringify(o) === JSON.stringify(value)))) {
        return { fits: false, discriminated };
      }
      discriminated = true;
    }
  }
  return { fits: Object.keys(own).length > 0, discriminated };
};

/**
 * The field of a record that names its container: an object holding the container's id that describes the
 * container's records, told apart by a fixed value (`type: folder`) or by its name (the container's own, or
 * `parent`). Exactly one, or none.
 */
const containerFieldOf = (document: unknown, member: ResourceShape, container: ResourceShape): string | undefined => {
  const leaf = canonicalName(container.resource.name.split('.').pop() ?? container.resource.name);
  const candidates = Object.entries(propertiesOf(member.record)).filter(([name, schema]) => {
    // A record holds another of its own kind as its parent; any other such field is a copy or a relation.
    if (member === container && canonicalName(name) !== 'parent') {
      return false;
    }
    const flat = flattenSchema(document, schema);
    if (!(schemaTypes(flat).includes('object') || flat.properties) || !(container.idField in propertiesOf(flat))) {
      return false;
    }
    const { fits, discriminated } = describes(document, flat, container.record);
    return fits && (discriminated || [leaf, 'parent'].includes(canonicalName(name)));
  });
  return candidates.length === 1 ? candidates[0][0] : undefined;
};

const successOf = (operation: OperationModel): { pointer: string; headers: string[] } | undefined => {
  const response = operation.responses.find((r) => /^2\d\d$/.test(r.status));
  const pointer = response
    ? Object.entries(response.content).find(([type, p]) => p && /json/i.test(type))?.[1]
    : undefined;
  return response && pointer ? { pointer, headers: response.headers ?? [] } : undefined;
};

/** The array a list response holds its page in: the body itself, or its one array property. */
const pageOf = (document: unknown, schema: Schema): { listField?: string; items: unknown } | undefined => {
  if (schemaTypes(schema).includes('array')) {
    return { items: schema.items ?? {} };
  }
  const arrays = Object.entries(propertiesOf(schema)).filter(([, value]) =>
    schemaTypes(flattenSchema(document, value)).includes('array'),
  );
  const named = arrays.filter(([key]) =>
    /^(data|items|results|entries|records|values|list|content|elements)$/i.test(key),
  );
  if (named.length === 1) {
    return { listField: named[0][0], items: flattenSchema(document, named[0][1]).items ?? {} };
  }
  return arrays.length === 1
    ? { listField: arrays[0][0], items: flattenSchema(document, arrays[0][1]).items ?? {} }
    : undefined;
};

/**
 * The container listing a read operation is, if it is one: a GET under a resource's item path (literal segments
 * after it) that CRUD does not answer, whose items are records of other resources that each name their container.
 */
export const containerListingOf = (
  document: unknown,
  operation: OperationModel,
  shapes: ResourceShape[],
): ContainerListing | undefined => {
  if (operation.method !== 'get') {
    return undefined;
  }
  const container = shapes
    .filter(({ resource }) => {
      const itemPath = resource.itemPath;
      return (
        itemPath !== undefined &&
        resource.idParameter !== undefined &&
        operation.path.startsWith(`${itemPath}/`) &&
        !operation.path.slice(itemPath.length).includes('{')
      );
    })
    .sort((a, b) => (b.resource.itemPath?.length ?? 0) - (a.resource.itemPath?.length ?? 0))[0];
  const success = successOf(operation);
  if (!container?.resource.idParameter || !success) {
    return undefined;
  }
  const listSchema = flattenSchema(document, { $ref: `#${success.pointer}` });
  const page = pageOf(document, listSchema);
  if (!page) {
    return undefined;
  }
  const items = flattenSchema(document, page.items);
  const alternatives = (items.oneOf ?? items.anyOf) as unknown[] | undefined;
  const members: ContainerMember[] = [];
  for (const branch of Array.isArray(alternatives) && !items.properties ? alternatives : [page.items]) {
    const itemSchema = flattenSchema(document, branch);
    const candidates = shapes.filter(
      (shape) => shape.idField in propertiesOf(itemSchema) && describes(document, itemSchema, shape.record).fits,
    );
    // A trash or a sub-listing may share a record's shape; the resource that stands on its own is the one meant.
    const standalone = candidates.filter((shape) => !shape.resource.parent);
    const chosen = standalone.length > 0 ? standalone : candidates;
    if (chosen.length !== 1 || members.some((member) => member.shape === chosen[0])) {
      continue;
    }
    const field = containerFieldOf(document, chosen[0], container);
    if (field) {
      members.push({ shape: chosen[0], field, itemSchema });
    }
  }
  if (members.length === 0) {
    return undefined;
  }
  return {
    container,
    parameter: container.resource.idParameter,
    members,
    ...(page.listField ? { listField: page.listField } : {}),
    listSchema,
    pagination: detectOperationPagination(document, operation, success.headers),
  };
};

/** What answering a container listing needs: the CRUD context, for an operation that is a listing. */
export type ListingContext = Omit<CrudContext, 'plan'> & { plan: OperationPlan; listing: ContainerListing };

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';

const visibleIn = (context: ListingContext, key: string, record: WorldRecord | undefined): record is WorldRecord =>
  record !== undefined && (!context.visible || context.visible(key, record));

/** Whether an item fits its branch of the listing's schema, checked once per member on the first item answered. */
const memberFits = new WeakMap<ContainerMember, boolean>();

const answered = (context: ListingContext, member: ContainerMember, record: WorldRecord): WorldRecord => {
  let fits = memberFits.get(member);
  if (fits === undefined) {
    fits = context.validators.validatorForSchema(member.itemSchema)(record);
    memberFits.set(member, fits);
  }
  return fits ? record : layOver(context, member.itemSchema, record);
};

const envelopes = new WeakMap<ContainerListing, ListEnvelope>();

/**
 * The listing's answer: the member records, world's and created alike, whose container field holds the container's
 * id, paged as the operation pages; the spec's 404 when the container is neither a record nor named by any. A linear walk
 * of the member tables: containers are listed far less often than records are read.
 */
export const listContainer = (context: ListingContext): Outcome => {
  const { listing, plan, state } = context;
  const id = asText(context.request.path[listing.parameter]);
  const notFound: Outcome = {
    response: context.responses.error(plan, 404, 'not_found', `no ${listing.container.resource.name} with id ${id}`),
    events: [],
  };
  const container = state.get(listing.container.key, id);
  if (container !== undefined && !visibleIn(context, listing.container.key, container)) {
    return notFound;
  }
  const items: { member: ContainerMember; record: WorldRecord; id: string }[] = [];
  for (const member of listing.members) {
    for (const memberId of state.ids(member.shape.key)) {
      const record = state.get(member.shape.key, memberId);
      const holder = record?.[member.field] as Record<string, unknown> | null | undefined;
      if (visibleIn(context, member.shape.key, record) && holder && asText(holder[listing.container.idField]) === id) {
        items.push({ member, record, id: memberId });
      }
    }
  }
  // A container the twin holds no record of still exists while records name it as theirs: a root the spec never
  // lists (an account's top folder) is where clients put their first records.
  if (container === undefined && items.length === 0) {
    return notFound;
  }
  const limit = plan.parameters.find((p) => p.name === listing.pagination.parameters.limit);
  const limitSchema = limit?.schema ? flattenSchema(context.document, limit.schema) : {};
  let page: Page;
  try {
    page = paginate(
      items.map((item) => item.id),
      listing.pagination,
      context.request.query,
      typeof limitSchema.default === 'number' && limitSchema.default > 0 ? limitSchema.default : 20,
    );
  } catch (error) {
    if (error instanceof PaginationError) {
      return { response: context.responses.error(plan, 400, 'invalid_cursor', error.message), events: [] };
    }
    throw error;
  }
  const records = items
    .slice(page.offset, page.offset + page.ids.length)
    .map((item) => answered(context, item.member, item.record));
  const recordsText = `[${records.map(recordJson).join(',')}]`;
  const link =
    listing.pagination.linkHeader || listing.pagination.style === 'link-header'
      ? linkHeader(listing.pagination, context.url, context.rawQuery, page)
      : undefined;
  const headers: Record<string, string> = {
    'content-type': plan.successMediaType ?? 'application/json',
    ...(link ? { link } : {}),
  };
  if (!listing.listField || !plan.successSchemaPointer) {
    return { response: { ...jsonResponse(plan.successStatus, records, headers), text: recordsText }, events: [] };
  }
  let envelope = envelopes.get(listing);
  if (!envelope) {
    envelope = planListEnvelope(context.document, listing.listSchema, listing.listField);
    envelopes.set(listing, envelope);
  }
  const template = context.responses.template(plan.successSchemaPointer, 'list') as Record<string, unknown>;
  const body = structuredClone(restOf(template, listing.listField).rest);
  const linkTo: PageLink = (target) => pageUrl(listing.pagination, context.url, context.rawQuery, page, target);
  for (const setter of envelope.setters) {
    setter(body, page, linkTo);
  }
  return {
    response: {
      ...jsonResponse(plan.successStatus, { ...body, [listing.listField]: records }, headers),
      text: withField(JSON.stringify(body), listing.listField, recordsText),
    },
    events: [],
  };
};
