import { flattenSchema } from '@libs/openapi-schemas';
import type { WorldRecord } from '@libs/synthetic-data';

import { CrudContext, layOver, Outcome, restOf } from './crud-behaviour';
import { ListEnvelope, PageLink, planListEnvelope } from './list-envelope';
import type { OperationPlan } from './operation-plan';
import { linkHeader, Page, paginate, PaginationError, pageUrl } from './pagination';
import { recordJson, withField } from './record-json';
import { jsonResponse } from './twin-http';
import { ContainerListing, ContainerMember } from './container-listings';

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
  const template = context.responses.template(plan.successSchemaPointer, 'list', listing.listField) as Record<
    string,
    unknown
  >;
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
