import type { PaginationModel } from '@libs/stack-ingestion';

export interface Page {
  ids: string[];
  total: number;
  limit: number;
  /** Offset of the page's first record. */
  offset: number;
  nextCursor?: string;
  nextPage?: number;
  hasMore: boolean;
  /** Ids of the page's first and last records, for APIs that page by record id (`first_id`, `last_id`). */
  firstId?: string;
  lastId?: string;
}

export class PaginationError extends Error {}

/** Cursors are opaque to clients, as in real APIs, and carry only the offset of the next page. */
export const encodeCursor = (offset: number): string => Buffer.from(`o:${offset}`).toString('base64url');

const decodeCursor = (cursor: string): number => {
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) {
    throw new PaginationError(`cursor "${cursor}" is not one this API issued`);
  }
  return Number(match[1]);
};

/**
 * A count or position as a number: an integer beyond 2^53 arrives as its digits (request validation keeps them exact),
 * and for slicing a listing its nearest number is as far past the end as the value itself.
 */
const wholeNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value)
    ? value
    : typeof value === 'string' && /^-?\d+$/.test(value)
      ? Number(value)
      : undefined;

const positiveInt = (value: unknown, fallback: number): number => {
  const whole = wholeNumber(value);
  return whole !== undefined && whole > 0 ? whole : fallback;
};

const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/**
 * Where a record-id cursor puts the page: `starting_after=<id>` starts after that record, `ending_before=<id>` ends
 * before it. An id the listing has never held is the client's mistake, named in the error.
 */
const byRecordId = (
  ids: string[],
  pagination: PaginationModel,
  query: Record<string, unknown>,
  limit: number,
): { start: number; end: number; hasMore: boolean } => {
  const after = textOf(query[pagination.parameters.cursor]);
  const before = pagination.parameters.before ? textOf(query[pagination.parameters.before]) : undefined;
  const positionOf = (id: string, parameter: string): number => {
    const index = ids.indexOf(id);
    if (index < 0) {
      const shown = id.length > 80 ? `${id.slice(0, 80)}…` : id;
      throw new PaginationError(`${parameter}: no object with id "${shown}" in this list`);
    }
    return index;
  };
  if (after !== undefined) {
    const start = positionOf(after, pagination.parameters.cursor) + 1;
    return { start, end: start + limit, hasMore: start + limit < ids.length };
  }
  if (before !== undefined) {
    const end = positionOf(before, pagination.parameters.before);
    return { start: Math.max(0, end - limit), end, hasMore: end - limit > 0 };
  }
  return { start: 0, end: limit, hasMore: limit < ids.length };
};

/** Cuts one page out of a listing the way the spec's pagination style says. */
export const paginate = (
  ids: string[],
  pagination: PaginationModel,
  query: Record<string, unknown>,
  defaultLimit: number,
): Page => {
  const limitParameter = pagination.parameters.limit;
  const limit = positiveInt(limitParameter ? query[limitParameter] : undefined, defaultLimit);
  let offset = 0;
  switch (pagination.style) {
    case 'offset': {
      const raw = wholeNumber(query[pagination.parameters.offset]);
      offset = raw !== undefined && raw >= 0 ? raw : 0;
      break;
    }
    case 'page':
    case 'link-header': {
      const pageParameter = pagination.parameters.page ?? 'page';
      offset = (positiveInt(query[pageParameter], 1) - 1) * limit;
      break;
    }
    case 'cursor': {
      if (pagination.byRecordId) {
        const { start, end, hasMore } = byRecordId(ids, pagination, query, limit);
        const slice = ids.slice(start, end);
        return {
          ids: slice,
          total: ids.length,
          limit,
          offset: start,
          hasMore,
          ...(slice.length > 0 ? { firstId: slice[0], lastId: slice[slice.length - 1] } : {}),
          ...(end < ids.length && slice.length > 0 ? { nextCursor: slice[slice.length - 1] } : {}),
        };
      }
      const cursor = query[pagination.parameters.cursor];
      const byOffset = pagination.parameters.offset ? wholeNumber(query[pagination.parameters.offset]) : undefined;
      offset =
        typeof cursor === 'string' && cursor !== ''
          ? decodeCursor(cursor)
          : byOffset !== undefined && byOffset >= 0
            ? byOffset
            : 0;
      break;
    }
    case 'none':
      break;
  }
  const slice = ids.slice(offset, offset + limit);
  const hasMore = offset + limit < ids.length;
  return {
    ids: slice,
    total: ids.length,
    limit,
    offset,
    hasMore,
    ...(slice.length > 0 ? { firstId: slice[0], lastId: slice[slice.length - 1] } : {}),
    ...(hasMore ? { nextCursor: encodeCursor(offset + limit), nextPage: Math.floor(offset / limit) + 2 } : {}),
  };
};

/** The query of a neighbouring page: the page-driving parameters set, every other parameter kept as the client sent. */
const pageQuery = (
  pagination: PaginationModel,
  rawQuery: URLSearchParams,
  page: Page,
  target: 'next' | 'prev' | 'first' | 'last',
): URLSearchParams | undefined => {
  const query = new URLSearchParams(rawQuery);
  const { parameters } = pagination;
  const lastOffset = Math.max(0, Math.floor((page.total - 1) / page.limit) * page.limit);
  const offset = {
    next: page.offset + page.limit,
    prev: Math.max(0, page.offset - page.limit),
    first: 0,
    last: lastOffset,
  }[target];
  switch (pagination.style) {
    case 'cursor':
      if (parameters.before) {
        query.delete(parameters.before);
      }
      if (target === 'first') {
        query.delete(parameters.cursor);
      } else if (!pagination.byRecordId) {
        // Opaque cursors are the twin's own offsets: every neighbour can be named.
        query.set(parameters.cursor, encodeCursor(offset));
      } else if (target === 'next' && page.nextCursor !== undefined) {
        query.set(parameters.cursor, page.nextCursor);
      } else if (target === 'prev' && parameters.before && page.firstId !== undefined) {
        query.delete(parameters.cursor);
        query.set(parameters.before, page.firstId);
      } else {
        return undefined;
      }
      return query;
    case 'offset':
      query.set(parameters.offset, String(offset));
      return query;
    case 'page':
    case 'link-header':
      query.set(parameters.page ?? 'page', String(Math.floor(offset / page.limit) + 1));
      if (parameters.limit && rawQuery.has(parameters.limit)) {
        query.set(parameters.limit, String(page.limit));
      }
      return query;
    case 'none':
      return undefined;
  }
};

/** The absolute URL of a neighbouring page, on the base the request came in on. */
export const pageUrl = (
  pagination: PaginationModel,
  url: string,
  rawQuery: URLSearchParams,
  page: Page,
  target: 'next' | 'prev' | 'first' | 'last',
): string | undefined => {
  const query = pageQuery(pagination, rawQuery, page, target);
  if (!query) {
    return undefined;
  }
  const search = query.toString();
  return search ? `${url.split('?')[0]}?${search}` : url.split('?')[0];
};

/**
 * An RFC 8288 `Link` header for the page: `next` and `prev` where there are such pages, `first`, and `last` where the
 * style can name it (a record-id cursor cannot). Undefined when there is nothing to link.
 */
export const linkHeader = (
  pagination: PaginationModel,
  url: string,
  rawQuery: URLSearchParams,
  page: Page,
): string | undefined => {
  const targets: ('next' | 'prev' | 'first' | 'last')[] = [];
  const namesLast = !(pagination.style === 'cursor' && pagination.byRecordId);
  if (page.offset + page.limit < page.total) {
    targets.push('next');
  }
  if (page.offset > 0) {
    targets.push('prev');
  }
  targets.push('first');
  if (namesLast && page.total > 0) {
    targets.push('last');
  }
  const links = targets.flatMap((target) => {
    const href = pageUrl(pagination, url, rawQuery, page, target);
    return href ? [`<${href}>; rel="${target}"`] : [];
  });
  return links.length > 0 ? links.join(', ') : undefined;
};
