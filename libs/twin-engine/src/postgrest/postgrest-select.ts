import type { WorldRecord } from '@libs/synthetic-data';

import { Filter, isEmbeddedKey, matchesAll, parseFilters, splitTopLevel } from './postgrest-filters';
import { parseFault, PostgrestFault, unknownColumn } from './postgrest-fault';
import { RowReader } from './postgrest-rows';
import { Column, Table, TableCatalogue, TableRelation } from './postgrest-tables';
import { compareValues } from './postgrest-values';

interface SelectColumn {
  kind: 'column';
  name: string;
  alias: string;
  /** `::text` casts a value to its text; other casts keep the value. */
  asText: boolean;
}

interface SelectEmbed {
  kind: 'embed';
  table: Table;
  alias: string;
  /** The foreign key it follows, and whether the embedded rows are the parent (one) or the children (many). */
  relation: TableRelation;
  many: boolean;
  inner: boolean;
  items: SelectItem[];
  /** Its own filters, order and page (`books.status=eq.x`, `books.order=id.desc`, `books.limit=2`). */
  filters: Filter[];
  order: OrderTerm[];
  offset: number;
  limit?: number;
}

type SelectItem = { kind: 'all' } | SelectColumn | SelectEmbed;

const identifier = /^[A-Za-z_][\w$-]*$/;

/** The foreign key between two tables that an embed follows: one, or the 300/400 PostgREST answers. */
const relationBetween = (
  catalogue: TableCatalogue,
  from: Table,
  to: Table,
  hint: string | undefined,
): { relation: TableRelation; many: boolean } => {
  const candidates = [
    ...catalogue.relations
      .filter((r) => r.from === from.name && r.to === to.name)
      .map((r) => ({ relation: r, many: false })),
    ...catalogue.relations
      .filter((r) => r.from === to.name && r.to === from.name)
      .map((r) => ({ relation: r, many: true })),
  ].filter(
    ({ relation }) => hint === undefined || relation.fromColumns.includes(hint) || relation.toColumns.includes(hint),
  );
  if (candidates.length === 0) {
    throw new PostgrestFault(
      400,
      'PGRST200',
      `Could not find a relationship between '${from.name}' and '${to.name}' in the schema cache`,
      `Searched for a foreign key relationship between '${from.name}' and '${to.name}'${hint ? ` using the hint '${hint}'` : ''}`,
    );
  }
  if (candidates.length > 1) {
    throw new PostgrestFault(
      300,
      'PGRST201',
      `Could not embed because more than one relationship was found for '${from.name}' and '${to.name}'`,
      candidates.map(({ relation }) => `${relation.from}(${relation.fromColumns.join(',')})`).join('; '),
      `Try changing '${to.name}' to one of the foreign key columns, e.g. '${to.name}!${candidates[0].relation.fromColumns[0]}'`,
    );
  }
  return candidates[0];
};

const parseItems = (catalogue: TableCatalogue, table: Table, text: string, depth: number): SelectItem[] => {
  if (depth > 8) {
    throw parseFault('select parameter', 'embedded deeper than 8 levels');
  }
  return splitTopLevel(text.replace(/\s+/g, '')).map((item): SelectItem => {
    if (item === '*') {
      return { kind: 'all' };
    }
    const embed = /^(?:([^:()!]+):)?([^:()!]+)(?:!([^:()!]+))?(?:!(inner|left))?\(([\s\S]*)\)$/.exec(item);
    if (embed) {
      const [, alias, name, hintOrJoin, join, inside] = embed;
      const target = catalogue.tables.get(name);
      if (!target) {
        throw new PostgrestFault(
          400,
          'PGRST200',
          `Could not find a relationship between '${table.name}' and '${name}' in the schema cache`,
        );
      }
      const hint = hintOrJoin === 'inner' || hintOrJoin === 'left' ? undefined : hintOrJoin;
      const { relation, many } = relationBetween(catalogue, table, target, hint);
      return {
        kind: 'embed',
        table: target,
        alias: alias ?? name,
        relation,
        many,
        inner: join === 'inner' || hintOrJoin === 'inner',
        items: inside === '' ? [{ kind: 'all' }] : parseItems(catalogue, target, inside, depth + 1),
        filters: [],
        order: [],
        offset: 0,
      };
    }
    const column = /^(?:([^:()]+):)?([^:()]+?)(?:::([a-z0-9 ]+))?$/.exec(item);
    if (!column || !identifier.test(column[2]) || (column[1] !== undefined && !identifier.test(column[1]))) {
      throw parseFault('select parameter', `"${item.slice(0, 100)}" is not a column, alias:column or table(columns)`);
    }
    if (!table.columns.has(column[2])) {
      throw unknownColumn(table.name, column[2]);
    }
    return { kind: 'column', name: column[2], alias: column[1] ?? column[2], asText: column[3] === 'text' };
  });
};

/** What `select=` asks for: columns, aliases, `::text` casts and resources embedded over foreign keys. */
export class Selection {
  private constructor(
    private readonly items: SelectItem[],
    private readonly table: Table,
  ) {}

  static parse(catalogue: TableCatalogue, table: Table, query: URLSearchParams): Selection {
    const select = query.get('select');
    const selection = new Selection(
      select === null || select === '' ? [{ kind: 'all' }] : parseItems(catalogue, table, select, 0),
      table,
    );
    const embedded = [...query.entries()].filter(([key]) => isEmbeddedKey(key));
    scope(selection.items, embedded);
    return selection;
  }

  /** Whether an `!inner` embed keeps this row out (no related row). */
  keeps(record: WorldRecord, reader: RowReader): boolean {
    return this.items.every((item) => item.kind !== 'embed' || !item.inner || related(item, record, reader).length > 0);
  }

  project(record: WorldRecord, reader: RowReader): WorldRecord {
    return projectItems(this.items, this.table, record, reader);
  }
}

const pageParameter = (text: string, what: string): number => {
  if (!/^\d{1,9}$/.test(text)) {
    throw parseFault(`${what} parameter (${text.slice(0, 50)})`, 'expecting a non-negative integer');
  }
  return Number(text);
};

/** Hands `alias.key=value` parameters to the embed they name, deeper ones on down (`a.b.key`). */
const scope = (items: SelectItem[], parameters: [string, string][]): void => {
  const byEmbed = new Map<SelectEmbed, [string, string][]>();
  for (const [key, value] of parameters) {
    const dot = key.indexOf('.');
    const alias = key.slice(0, dot);
    const embed = items.find((item): item is SelectEmbed => item.kind === 'embed' && item.alias === alias);
    if (!embed) {
      throw new PostgrestFault(400, 'PGRST108', `'${alias.slice(0, 100)}' is not an embedded resource in this request`);
    }
    byEmbed.set(embed, [...(byEmbed.get(embed) ?? []), [key.slice(dot + 1), value]]);
  }
  for (const [embed, own] of byEmbed) {
    embed.filters = parseFilters(embed.table, own);
    for (const [key, value] of own) {
      if (key === 'order') {
        embed.order = parseOrder(embed.table, value);
      } else if (key === 'limit') {
        embed.limit = pageParameter(value, 'limit');
      } else if (key === 'offset') {
        embed.offset = pageParameter(value, 'offset');
      }
    }
    scope(
      embed.items,
      own.filter(([key]) => isEmbeddedKey(key)),
    );
  }
};

const related = (embed: SelectEmbed, record: WorldRecord, reader: RowReader): WorldRecord[] => {
  const { relation, many } = embed;
  const [localColumns, remoteColumns] = many
    ? [relation.toColumns, relation.fromColumns]
    : [relation.fromColumns, relation.toColumns];
  const rows = reader
    .lookup(
      embed.table,
      remoteColumns,
      localColumns.map((column) => record[column]),
    )
    .map((row) => row.record)
    .filter((row) => matchesAll(embed.filters, row));
  return sortRows(rows, embed.order).slice(
    embed.offset,
    embed.limit === undefined ? undefined : embed.offset + embed.limit,
  );
};

const projectItems = (items: SelectItem[], table: Table, record: WorldRecord, reader: RowReader): WorldRecord => {
  const out: WorldRecord = {};
  for (const item of items) {
    switch (item.kind) {
      case 'all':
        for (const name of table.columns.keys()) {
          out[name] = record[name] ?? null;
        }
        break;
      case 'column': {
        const value = record[item.name] ?? null;
        out[item.alias] =
          item.asText && value !== null ? (typeof value === 'string' ? value : JSON.stringify(value)) : value;
        break;
      }
      case 'embed': {
        const found = related(item, record, reader);
        reader.charge(found.length);
        const rows = found.map((row) => projectItems(item.items, item.table, row, reader));
        out[item.alias] = item.many ? rows : (rows[0] ?? null);
        break;
      }
    }
  }
  return out;
};

interface OrderTerm {
  column: Column;
  descending: boolean;
  nullsFirst: boolean;
}

/** `order=col.desc.nullslast,col2`: ascending puts NULLs last and descending first, as PostgreSQL does by default. */
export const parseOrder = (table: Table, order: string | null): OrderTerm[] => {
  if (order === null || order.trim() === '') {
    return [];
  }
  return splitTopLevel(order).map((term) => {
    const [name, ...modifiers] = term.trim().split('.');
    const column = table.columns.get(name);
    if (!column) {
      throw unknownColumn(table.name, name);
    }
    let descending = false;
    let nulls: boolean | undefined;
    for (const modifier of modifiers) {
      if (modifier === 'asc' || modifier === 'desc') {
        descending = modifier === 'desc';
      } else if (modifier === 'nullsfirst' || modifier === 'nullslast') {
        nulls = modifier === 'nullsfirst';
      } else {
        throw parseFault(`order (${term.slice(0, 100)})`, 'expecting asc, desc, nullsfirst or nullslast');
      }
    }
    return { column, descending, nullsFirst: nulls ?? descending };
  });
};

export const sortRows = (rows: WorldRecord[], terms: OrderTerm[]): WorldRecord[] => {
  if (terms.length === 0) {
    return rows;
  }
  // A stable sort: rows equal on every term keep the table's order.
  return [...rows].sort((a, b) => {
    for (const { column, descending, nullsFirst } of terms) {
      const left = a[column.name] ?? null;
      const right = b[column.name] ?? null;
      if (left === null || right === null) {
        if (left !== right) {
          return (left === null) === nullsFirst ? -1 : 1;
        }
        continue;
      }
      const order = compareValues(column, left, right);
      if (order !== 0) {
        return descending ? -order : order;
      }
    }
    return 0;
  });
};
