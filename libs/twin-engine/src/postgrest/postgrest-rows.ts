import type { WorldRecord } from '@libs/synthetic-data';

import type { EpisodeState } from '../episode-state';
import { PostgrestFault } from './postgrest-fault';
import { Table } from './postgrest-tables';

export interface Row {
  id: string;
  record: WorldRecord;
}

/**
 * What a tuple of column values is keyed by in a lookup: their JSON (values of one typed column are stored in one
 * form, so equal values have equal JSON). A NULL matches nothing, as in SQL joins.
 */
export const valuesKey = (values: readonly unknown[]): string | undefined =>
  values.some((value) => value === null || value === undefined) ? undefined : JSON.stringify(values);

/** Past this many embedded rows in one answer, the request is refused rather than left to take the gateway down. */
const maxEmbeddedRows = 100_000;

/**
 * The rows one call reads: each table listed once, and hash indexes on the columns joins and key checks look up, so an
 * embed or a bulk insert costs its rows, not their product.
 */
export class RowReader {
  private readonly tables = new Map<string, Row[]>();
  private readonly indexes = new Map<string, Map<string, Row[]>>();
  private embedded = 0;

  constructor(private readonly state: EpisodeState) {}

  rows(table: Table): Row[] {
    let rows = this.tables.get(table.name);
    if (!rows) {
      rows = this.state.ids(table.key).flatMap((id) => {
        const record = this.state.get(table.key, id);
        return record ? [{ id, record }] : [];
      });
      this.tables.set(table.name, rows);
    }
    return rows;
  }

  /** The rows whose `columns` hold `values`. */
  lookup(table: Table, columns: readonly string[], values: readonly unknown[]): Row[] {
    const key = valuesKey(values);
    if (key === undefined) {
      return [];
    }
    const name = `${table.name}\u0000${columns.join('\u0000')}`;
    let index = this.indexes.get(name);
    if (!index) {
      index = new Map();
      for (const row of this.rows(table)) {
        const own = valuesKey(columns.map((column) => row.record[column]));
        if (own !== undefined) {
          index.set(own, [...(index.get(own) ?? []), row]);
        }
      }
      this.indexes.set(name, index);
    }
    return index.get(key) ?? [];
  }

  /** Counts rows put into an answer by embedding, refusing an answer that would grow without bound. */
  charge(rows: number): void {
    this.embedded += rows;
    if (this.embedded > maxEmbeddedRows) {
      throw new PostgrestFault(
        400,
        '54000',
        `the answer would embed more than ${maxEmbeddedRows} rows`,
        null,
        'select fewer embedded resources, or filter or limit them (books.limit=10)',
      );
    }
  }
}
