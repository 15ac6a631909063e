import type { WorldRecord } from '@libs/synthetic-data';

import { PostgrestFault } from './postgrest-fault';
import { RowReader, valuesKey } from './postgrest-rows';
import { Table, TableCatalogue } from './postgrest-tables';
import { compareValues } from './postgrest-values';

export const valuesText = (columns: string[], record: WorldRecord): string =>
  `(${columns.join(', ')})=(${columns.map((c) => (typeof record[c] === 'string' ? record[c] : JSON.stringify(record[c] ?? null))).join(', ')})`;

/** What PostgreSQL would refuse in a write: NULLs, values a CHECK leaves out, keys taken, references broken. */
export class TableConstraints {
  constructor(private readonly catalogue: TableCatalogue) {}

  /** `NOT NULL` and `CHECK (col IN (…))` hold for a row about to be written. */
  notNull(table: Table, record: WorldRecord): void {
    const failing = () => `Failing row contains ${valuesText([...table.columns.keys()], record).split('=')[1]}.`;
    for (const column of table.columns.values()) {
      const value = record[column.name] ?? null;
      if (!column.nullable && value === null) {
        throw new PostgrestFault(
          400,
          '23502',
          `null value in column "${column.name}" of relation "${table.name}" violates not-null constraint`,
          failing(),
        );
      }
      if (
        value !== null &&
        column.allowed &&
        !column.allowed.some((allowed) => compareValues(column, allowed, value) === 0)
      ) {
        throw new PostgrestFault(
          400,
          '23514',
          `new row for relation "${table.name}" violates check constraint "${table.name}_${column.name}_check"`,
          failing(),
        );
      }
    }
  }

  /** Every declared foreign key of the row points at a row that exists (in the episode, or among `pending`). */
  references(reader: RowReader, table: Table, record: WorldRecord, pending: WorldRecord[]): void {
    for (const relation of this.catalogue.relations.filter((r) => r.declared && r.from === table.name)) {
      const values = relation.fromColumns.map((column) => record[column]);
      const key = valuesKey(values);
      if (key === undefined) {
        continue;
      }
      const target = this.catalogue.tables.get(relation.to) as Table;
      const found =
        reader.lookup(target, relation.toColumns, values).length > 0 ||
        (relation.to === table.name &&
          pending.some((row) => valuesKey(relation.toColumns.map((column) => row[column])) === key));
      if (!found) {
        throw new PostgrestFault(
          409,
          '23503',
          `insert or update on table "${table.name}" violates foreign key constraint "${table.name}_${relation.fromColumns.join('_')}_fkey"`,
          `Key ${valuesText(relation.fromColumns, record)} is not present in table "${relation.to}".`,
        );
      }
    }
  }

  /** No row of another table still points at a row that is going away, or whose key is changing. */
  unreferenced(reader: RowReader, table: Table, leaving: WorldRecord[], leavingIds: Set<string>): void {
    for (const relation of this.catalogue.relations.filter((r) => r.declared && r.to === table.name)) {
      const source = this.catalogue.tables.get(relation.from) as Table;
      for (const gone of leaving) {
        const holder = reader
          .lookup(
            source,
            relation.fromColumns,
            relation.toColumns.map((column) => gone[column]),
          )
          .find(({ id }) => source !== table || !leavingIds.has(id));
        if (holder) {
          throw new PostgrestFault(
            409,
            '23503',
            `update or delete on table "${table.name}" violates foreign key constraint "${relation.from}_${relation.fromColumns.join('_')}_fkey" on table "${relation.from}"`,
            `Key ${valuesText(relation.toColumns, gone)} is still referenced from table "${relation.from}".`,
          );
        }
      }
    }
  }

  duplicate(table: Table, columns: string[], record: WorldRecord): PostgrestFault {
    return new PostgrestFault(
      409,
      '23505',
      `duplicate key value violates unique constraint "${table.name}_pkey"`,
      `Key ${valuesText(columns, record)} already exists.`,
    );
  }
}
