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

const positiveInt = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback;

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
      const raw = query[pagination.parameters.offset];
      offset = typeof raw === 'number' && raw >= 0 ? raw : 0;
      break;
    }
    case 'page':
    case 'link-header': {
      const pageParameter = pagination.parameters.page ?? 'page';
      offset = (positiveInt(query[pageParameter], 1) - 1) * limit;
      break;
    }
    case 'cursor': {
      const cursor = query[pagination.parameters.cursor];
      offset = typeof cursor === 'string' && cursor !== '' ? decodeCursor(cursor) : 0;
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
    ...(hasMore ? { nextCursor: encodeCursor(offset + limit), nextPage: Math.floor(offset / limit) + 2 } : {}),
  };
};
