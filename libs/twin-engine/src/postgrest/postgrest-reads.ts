import type { Outcome } from '../crud-behaviour';
import type { PackCall } from '../packs/twin-pack';
import { PostgrestFault } from './postgrest-fault';
import { matchesAll, parseFilters } from './postgrest-filters';
import { represent } from './postgrest-representation';
import { preferencesOf, rangeOf, representationOf } from './postgrest-request';
import { RowReader } from './postgrest-rows';
import { parseOrder, Selection, sortRows } from './postgrest-select';
import { Table, TableCatalogue } from './postgrest-tables';

/** `GET` (and `HEAD`) of a table: filters, embedding, order, a range of rows, in the representation asked for. */
export const readRows = (catalogue: TableCatalogue, call: PackCall, table: Table, head: boolean): Outcome => {
  const { query, headers } = call.request;
  const filters = parseFilters(table, query);
  const selection = Selection.parse(catalogue, table, query);
  const order = parseOrder(table, query.get('order'));
  const representation = representationOf(headers.accept);
  const prefer = preferencesOf(headers.prefer);
  const range = rangeOf(query, headers.range);
  const reader = new RowReader(call.state);
  const matching = sortRows(
    reader
      .rows(table)
      .map(({ record }) => record)
      .filter((record) => matchesAll(filters, record))
      .filter((record) => selection.keeps(record, reader)),
    order,
  );
  const total = matching.length;
  const totalText = prefer.count ? String(total) : '*';
  if (prefer.count && range.offset > 0 && range.offset >= total) {
    throw new PostgrestFault(
      416,
      'PGRST103',
      'Requested range not satisfiable',
      `An offset of ${range.offset} was requested, but there are only ${total} rows.`,
      null,
    );
  }
  const page = matching.slice(range.offset, range.limit === undefined ? undefined : range.offset + range.limit);
  const contentRange =
    page.length > 0 ? `${range.offset}-${range.offset + page.length - 1}/${totalText}` : `*/${totalText}`;
  const partial = prefer.count && page.length < total;
  const response = represent(
    page.map((record) => selection.project(record, reader)),
    representation,
    partial ? 206 : 200,
    { 'content-range': contentRange, ...(prefer.count ? { 'preference-applied': 'count=exact' } : {}) },
  );
  return { response: head ? { status: response.status, headers: response.headers } : response, events: [] };
};
