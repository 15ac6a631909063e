import { PaginationModel } from '@libs/stack-model';

const cursorNames = [
  'cursor',
  'starting_after',
  'after',
  'page_token',
  'pagetoken',
  'next_token',
  'nexttoken',
  'marker',
  'continuation_token',
  'next_marker',
  'next',
  'token',
];
const offsetNames = ['offset', 'skip', '$skip', 'start', 'start_index'];
const pageNames = ['page', 'page_number', 'pagenumber', 'page_index'];
const limitNames = [
  'limit',
  'per_page',
  'page_size',
  'pagesize',
  'size',
  '$top',
  'top',
  'count',
  'max_results',
  'maxresults',
  'max',
];

const pick = (byLowerName: Map<string, string>, candidates: string[]): string | undefined =>
  candidates.map((c) => byLowerName.get(c)).find((name) => name !== undefined);

/**
 * Names the pagination convention of a list operation from its query parameters and response headers, so the twin
 * can page the way the real API does. Order matters: cursor APIs often also take a `limit`, and page APIs a size.
 */
export const detectPagination = (queryParameters: string[], responseHeaders: string[]): PaginationModel => {
  const byLowerName = new Map(queryParameters.map((name) => [name.toLowerCase(), name]));
  const limit = pick(byLowerName, limitNames);
  const withLimit = (parameters: Record<string, string>): Record<string, string> =>
    limit ? { ...parameters, limit } : parameters;
  const cursor = pick(byLowerName, cursorNames);
  if (cursor) {
    const before = pick(byLowerName, ['ending_before', 'before']);
    return { style: 'cursor', parameters: withLimit(before ? { cursor, before } : { cursor }) };
  }
  const offset = pick(byLowerName, offsetNames);
  if (offset) {
    return { style: 'offset', parameters: withLimit({ offset }) };
  }
  const page = pick(byLowerName, pageNames);
  if (page) {
    return { style: 'page', parameters: withLimit({ page }) };
  }
  if (responseHeaders.some((header) => header.toLowerCase() === 'link')) {
    return { style: 'link-header', parameters: withLimit({}) };
  }
  return { style: 'none', parameters: withLimit({}) };
};
