import { getAtPointer } from '@libs/bundle-documents';
import { OperationModel, PaginationModel } from '@libs/stack-model';

import { asRecord, dereference } from './internal-reference';

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
/** Names whose plain meaning is "the record to start after/before": an id unless described as an opaque token. */
const recordBoundNames = new Set(['starting_after', 'ending_before']);

/** "`starting_after` is an object ID that defines your place in the list", "the ID of the last item": an id. */
const namesRecordId =
  /\b(object|record|resource|item|entity)\s+id\b|\bid of (the|an?)\b|\bids?\b[^.]*\bplace in the list/i;
/** "A cursor, as given in the Link header", "the token from the previous response": opaque, whatever its name. */
const namesOpaque = /\b(token|opaque|as given|returned (in|by)|from the (previous|last) response)\b/i;

/** `Link: <…>; rel="next"` paging, as descriptions tell it. */
const mentionsLinkPaging =
  /\blink\b[^.]{0,40}\bheaders?\b|\bheaders?\b[^.]{0,40}\blink\b|rel=\\?"?(next|last)|\bRFC ?(5988|8288)\b/i;

export interface QueryParameter {
  name: string;
  description?: string;
}

const pick = (byLowerName: Map<string, QueryParameter>, candidates: string[]): QueryParameter | undefined =>
  candidates.map((c) => byLowerName.get(c)).find((parameter) => parameter !== undefined);

const isRecordId = (parameter: QueryParameter): boolean => {
  const description = parameter.description ?? '';
  if (namesOpaque.test(description) && !namesRecordId.test(description)) {
    return false;
  }
  return namesRecordId.test(description) || recordBoundNames.has(parameter.name.toLowerCase());
};

/**
 * Names the pagination convention of a list operation from its query parameters (names and descriptions), response
 * headers and the prose around it, so the twin can page the way the real API does. Order matters: cursor APIs often
 * also take a `limit`, and page APIs a size.
 */
export const detectPagination = (
  queryParameters: (string | QueryParameter)[],
  responseHeaders: string[],
  prose = '',
): PaginationModel => {
  const parameters = queryParameters.map((p) => (typeof p === 'string' ? { name: p } : p));
  const byLowerName = new Map(parameters.map((p) => [p.name.toLowerCase(), p]));
  const limit = pick(byLowerName, limitNames)?.name;
  const withLimit = (named: Record<string, string>): Record<string, string> => (limit ? { ...named, limit } : named);
  const linked =
    responseHeaders.some((header) => header.toLowerCase() === 'link') ||
    mentionsLinkPaging.test(prose) ||
    parameters.some((p) => mentionsLinkPaging.test(p.description ?? ''));
  const linkHeader = linked ? { linkHeader: true } : {};
  const cursor = pick(byLowerName, cursorNames);
  const offset = pick(byLowerName, offsetNames)?.name;
  if (cursor) {
    const before = pick(byLowerName, ['ending_before', 'before'])?.name;
    // Some APIs take either (`marker` or `offset`): a request without a cursor may still page by offset.
    return {
      style: 'cursor',
      parameters: withLimit({
        cursor: cursor.name,
        ...(before ? { before } : {}),
        ...(offset ? { offset } : {}),
      }),
      ...(isRecordId(cursor) ? { byRecordId: true } : {}),
      ...linkHeader,
    };
  }
  if (offset) {
    return { style: 'offset', parameters: withLimit({ offset }), ...linkHeader };
  }
  const page = pick(byLowerName, pageNames)?.name;
  if (page) {
    return { style: 'page', parameters: withLimit({ page }), ...linkHeader };
  }
  if (linked) {
    return { style: 'link-header', parameters: withLimit({}), linkHeader: true };
  }
  return { style: 'none', parameters: withLimit({}) };
};

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** What the operation and its success responses say in prose, where a vendor explains its paging. */
export const paginationProse = (document: unknown, operation: OperationModel): string => {
  const raw = asRecord(getAtPointer(document, operation.pointer));
  const responses = Object.entries(asRecord(raw.responses))
    .filter(([status]) => /^2/.test(status))
    .map(([, response]) => asRecord(dereference(document, response, '').value));
  return [
    textOf(raw.description),
    textOf(raw.summary),
    ...responses.flatMap((response) => [
      textOf(response.description),
      ...Object.values(asRecord(response.headers)).map((header) =>
        textOf(asRecord(dereference(document, header, '').value).description),
      ),
    ]),
  ].join('\n');
};

/** The pagination of one operation of a document. */
export const detectOperationPagination = (
  document: unknown,
  operation: OperationModel,
  responseHeaders: string[],
): PaginationModel =>
  detectPagination(
    operation.parameters
      .filter((p) => p.in === 'query')
      .map((p) => ({ name: p.name, ...(p.description ? { description: p.description } : {}) })),
    responseHeaders,
    paginationProse(document, operation),
  );
