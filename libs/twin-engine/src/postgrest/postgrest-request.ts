import { parseFault, PostgrestFault } from './postgrest-fault';

/** `Prefer` as PostgREST reads it: one header or several, comma-separated `name=value` preferences. */
export interface Preferences {
  return: 'minimal' | 'representation' | 'headers-only';
  count: boolean;
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  missingDefault: boolean;
  strict: boolean;
  maxAffected?: number;
}

export const preferencesOf = (header: string | undefined): Preferences => {
  const values = new Map<string, string>();
  for (const part of (header ?? '').split(',')) {
    const [name, value = ''] = part.trim().split('=');
    if (name) {
      values.set(name.trim().toLowerCase(), value.trim().toLowerCase());
    }
  }
  const returned = values.get('return');
  const resolution = values.get('resolution');
  const maxAffected = Number(values.get('max-affected'));
  return {
    return: returned === 'representation' || returned === 'headers-only' ? returned : 'minimal',
    count: ['exact', 'planned', 'estimated'].includes(values.get('count') ?? ''),
    ...(resolution === 'merge-duplicates' || resolution === 'ignore-duplicates' ? { resolution } : {}),
    missingDefault: values.get('missing') === 'default',
    strict: values.get('handling') === 'strict',
    ...(Number.isSafeInteger(maxAffected) && maxAffected >= 0 ? { maxAffected } : {}),
  };
};

export type Representation = { kind: 'array' | 'object' | 'csv'; stripNulls: boolean };

const mediaTypes: Record<string, Representation['kind']> = {
  'application/json': 'array',
  'application/vnd.pgrst.array+json': 'array',
  'application/*': 'array',
  '*/*': 'array',
  'application/vnd.pgrst.object+json': 'object',
  'application/vnd.pgrst.object': 'object',
  'text/csv': 'csv',
};

/** What `Accept` asks for, in the client's order; none that the twin has is a 406, as PostgREST answers. */
export const representationOf = (header: string | undefined): Representation => {
  if (header === undefined || header.trim() === '') {
    return { kind: 'array', stripNulls: false };
  }
  for (const range of header.split(',')) {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const kind = mediaTypes[type];
    if (kind) {
      return { kind, stripNulls: parameters.includes('nulls=stripped') };
    }
  }
  throw new PostgrestFault(406, 'PGRST107', `None of these media types are available: ${header.slice(0, 200)}`);
};

export interface RowRange {
  offset: number;
  limit?: number;
}

const nonNegative = (text: string, what: string): number => {
  if (!/^\d{1,9}$/.test(text.trim())) {
    throw parseFault(`${what} parameter (${text.slice(0, 50)})`, 'expecting a non-negative integer');
  }
  return Number(text);
};

/**
 * The rows asked for: `limit`/`offset` in the query, else the `Range` header (`0-9`, `10-`). A range that runs
 * backwards or is not one is refused with PostgREST's 416.
 */
export const rangeOf = (query: URLSearchParams, header: string | undefined): RowRange => {
  const limit = query.get('limit');
  const offset = query.get('offset');
  if (limit !== null || offset !== null) {
    return {
      offset: offset === null ? 0 : nonNegative(offset, 'offset'),
      ...(limit === null ? {} : { limit: nonNegative(limit, 'limit') }),
    };
  }
  if (header === undefined || header.trim() === '') {
    return { offset: 0 };
  }
  const match = /^\s*(?:items=)?(\d{1,9})-(\d{0,9})\s*$/.exec(header);
  if (!match || (match[2] !== '' && Number(match[2]) < Number(match[1]))) {
    throw new PostgrestFault(
      416,
      'PGRST103',
      'Requested range not satisfiable',
      `"${header.slice(0, 50)}" is not a range of rows such as 0-9`,
    );
  }
  return { offset: Number(match[1]), ...(match[2] === '' ? {} : { limit: Number(match[2]) - Number(match[1]) + 1 }) };
};

/** `columns="a","b"` of a bulk insert: the columns every row gives, absent keys then NULL or the default. */
export const columnsOf = (text: string | null): string[] | undefined =>
  text === null
    ? undefined
    : text
        .split(',')
        .map((name) => name.trim().replace(/^"(.*)"$/, '$1'))
        .filter((name) => name !== '');
