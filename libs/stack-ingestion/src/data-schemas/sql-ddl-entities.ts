import {
  ColumnConstraint,
  CreateColumnDef,
  CreateIndexStatement,
  CreateTableStatement,
  Expr,
  parse,
  Statement,
  TableAlteration,
  TableConstraint,
  toSql,
} from 'pgsql-ast-parser';

import {
  BundleFiles,
  formatLocation,
  IngestionError,
  IngestionProblem,
  lineOfOffset,
  lineStarts,
} from '@libs/bundle-documents';
import { EntityModel, FieldModel, RelationModel, StackWarning } from '@libs/stack-model';

import { SchemaEntities } from './json-schema-entities';
import { metaCommandKind, skippedKindOf } from './sql-skipped-statements';
import { withoutShapelessClauses } from './sql-shapeless-clauses';
import { splitSqlStatements, SqlLexicalError, SqlStatement } from './sql-statements';

export interface SqlEntities extends SchemaEntities {
  /** One per file and kind of statement skipped, located at its first occurrence. */
  warnings: StackWarning[];
}

type LocatedRelation = RelationModel & { file: string; line: number };

interface Skipped {
  file: string;
  kind: string;
  reason: string;
  lines: number[];
}

/** The statement being read: its file, where it starts, and how to turn an offset inside it into a file line. */
interface Place {
  file: string;
  line: (offsetInStatement?: number) => number;
}

const dataSchemaError = (problem: IngestionProblem): IngestionError =>
  IngestionError.single('DATA_SCHEMA_INVALID', problem);

const problemAt = (place: Place, offset: number | undefined, message: string): IngestionProblem => ({
  file: place.file,
  line: place.line(offset),
  pointer: '',
  message,
});

/** pgsql-ast-parser prints `now()` as `(now () )`: the text a reader expects. */
const sqlText = (expr: Expr): string =>
  toSql
    .expr(expr)
    .replace(/\s+(?=[()])|(?<=\()\s+/g, '')
    .replace(/^\((.*)\)$/, '$1')
    .trim();

/**
 * A column default as data: literals by value, the rest (`now()`, `nextval('…')`) as the SQL that computes it; a
 * `nextval` default tells the data twin the database numbers that key itself.
 */
const defaultOf = (expr: Expr): FieldModel['default'] => {
  switch (expr.type) {
    case 'string':
    case 'integer':
    case 'numeric':
    case 'boolean':
      return { value: expr.value };
    case 'null':
      return { value: null };
    case 'cast':
      return expr.operand.type === 'string' ? { value: expr.operand.value } : { expression: sqlText(expr) };
    default:
      return { expression: sqlText(expr) };
  }
};

const literalOf = (expr: Expr): string | number | undefined => {
  const plain = expr.type === 'cast' ? expr.operand : expr;
  switch (plain.type) {
    case 'string':
    case 'integer':
    case 'numeric':
      return plain.value;
    default:
      return undefined;
  }
};

/**
 * The values a `CHECK` allows a column, when it is a list: `status IN ('open', 'paid')`, or as pg_dump prints it,
 * `(status)::text = ANY (ARRAY['open'::text, 'paid'::text])`. Other checks are not modelled.
 */
const allowedValues = (expr: Expr): { column: string; values: (string | number)[] } | undefined => {
  if (expr.type !== 'binary') {
    return undefined;
  }
  const left = expr.left.type === 'cast' ? expr.left.operand : expr.left;
  if (left.type !== 'ref') {
    return undefined;
  }
  const items =
    expr.op === 'IN' && expr.right.type === 'list'
      ? expr.right.expressions
      : expr.op === '=' &&
          expr.right.type === 'call' &&
          expr.right.function.name.toLowerCase() === 'any' &&
          expr.right.args[0]?.type === 'array'
        ? expr.right.args[0].expressions
        : undefined;
  const values = items?.map(literalOf);
  return values && values.length > 0 && values.every((v) => v !== undefined)
    ? { column: left.name, values: values }
    : undefined;
};

/** Identity columns: the database numbers them, like a `nextval` default. */
const identityDefault: FieldModel['default'] = { expression: 'generated identity' };

/**
 * SQL DDL (PostgreSQL dialect, including `pg_dump --schema-only` output) becomes entities: one per `CREATE TABLE`,
 * with primary keys, unique keys and foreign keys as declared, whether inline or added later by `ALTER TABLE … ADD
 * CONSTRAINT` (pg_dump adds every key that way). Statements that do not shape tables (grants, triggers, functions,
 * sequences, views, indexes, comments …) are skipped with a located warning per kind. Anything else that is not
 * valid SQL is refused at its line.
 */
export const readSqlEntities = (files: BundleFiles, sqlFiles: string[]): SqlEntities => {
  const tables = new Map<string, { entity: EntityModel; file: string }>();
  const relations: LocatedRelation[] = [];
  const skipped = new Map<string, Skipped>();

  const skip = (place: Place, kind: string, reason: string, offset?: number): void => {
    const key = `${place.file}\0${kind}`;
    const entry = skipped.get(key) ?? { file: place.file, kind, reason, lines: [] };
    entry.lines.push(place.line(offset));
    skipped.set(key, entry);
  };

  const tableNamed = (place: Place, name: string, offset: number | undefined, statement: string): EntityModel => {
    const table = tables.get(name)?.entity;
    if (!table) {
      throw dataSchemaError(
        problemAt(place, offset, `${statement} names table "${name}", which no CREATE TABLE before it declares`),
      );
    }
    return table;
  };

  const fieldNamed = (place: Place, table: EntityModel, name: string, offset: number | undefined): FieldModel => {
    const field = table.fields.find((f) => f.name === name);
    if (!field) {
      throw dataSchemaError(problemAt(place, offset, `table "${table.name}" has no column "${name}"`));
    }
    return field;
  };

  /** A key or reference, inline or added by ALTER TABLE: both go through here, so both count the same. */
  const addConstraint = (
    place: Place,
    table: EntityModel,
    constraint: TableConstraint | ColumnConstraint,
    column?: string,
  ): void => {
    const offset = constraint._location?.start;
    const columnsOf = (names: { name: string }[] | undefined): string[] =>
      column !== undefined ? [column] : (names ?? []).map((n) => n.name);
    if (constraint.type === 'primary key') {
      if (table.primaryKey.length > 0) {
        throw dataSchemaError(problemAt(place, offset, `table "${table.name}" already has a primary key`));
      }
      const columns = columnsOf('columns' in constraint ? constraint.columns : undefined);
      for (const name of columns) {
        const field = fieldNamed(place, table, name, offset);
        field.required = true;
        field.nullable = false;
      }
      table.primaryKey.push(...columns);
    } else if (constraint.type === 'unique') {
      const columns = columnsOf('columns' in constraint ? constraint.columns : undefined);
      columns.forEach((name) => fieldNamed(place, table, name, offset));
      table.uniqueKeys = [...(table.uniqueKeys ?? []), columns];
    } else if (constraint.type === 'check') {
      const allowed = allowedValues(constraint.expr);
      const field =
        allowed &&
        (column === undefined || column === allowed.column) &&
        table.fields.find((f) => f.name === allowed.column);
      if (allowed && field) {
        field.enum = allowed.values;
      }
    } else if (constraint.type === 'default' && column !== undefined) {
      fieldNamed(place, table, column, offset).default = defaultOf(constraint.default);
    } else if (constraint.type === 'add generated' && column !== undefined) {
      fieldNamed(place, table, column, offset).default = identityDefault;
    } else if (constraint.type === 'foreign key' || constraint.type === 'reference') {
      const local = columnsOf('localColumns' in constraint ? constraint.localColumns : undefined);
      local.forEach((name) => fieldNamed(place, table, name, offset));
      relations.push({
        from: { entity: table.name, fields: local },
        to: { entity: constraint.foreignTable.name, fields: constraint.foreignColumns.map((c) => c.name) },
        origin: 'declared',
        file: place.file,
        line: place.line(offset),
      });
    }
    // Other CHECKs and NULL constraints do not shape the model; NOT NULL is read with the column.
  };

  const addColumn = (place: Place, table: EntityModel, column: CreateColumnDef): void => {
    if (table.fields.some((f) => f.name === column.name.name)) {
      throw dataSchemaError(
        problemAt(place, column._location?.start, `table "${table.name}" already has a column "${column.name.name}"`),
      );
    }
    const constraints = column.constraints ?? [];
    const notNull = constraints.some((c) => c.type === 'not null');
    const dataType = column.dataType as { name?: string; kind?: string };
    table.fields.push({
      name: column.name.name,
      type: dataType.name ?? dataType.kind ?? 'unknown',
      required: notNull,
      nullable: !notNull,
    });
    for (const constraint of constraints) {
      addConstraint(place, table, constraint, column.name.name);
    }
  };

  const createTable = (place: Place, statement: CreateTableStatement): void => {
    const name = statement.name.name;
    const existing = tables.get(name);
    if (existing) {
      throw dataSchemaError(
        problemAt(
          place,
          statement.name._location?.start,
          `table "${name}" is declared twice (also in ${existing.file})`,
        ),
      );
    }
    const entity: EntityModel = {
      name,
      source: { file: place.file, kind: 'sql' },
      primaryKey: [],
      fields: [],
      resources: [],
    };
    tables.set(name, { entity, file: place.file });
    for (const column of statement.columns) {
      if (column.kind === 'column') {
        addColumn(place, entity, column);
      } else {
        skip(place, 'CREATE TABLE … LIKE', 'copied columns are not modelled', column._location?.start);
      }
    }
    for (const constraint of statement.constraints ?? []) {
      addConstraint(place, entity, constraint);
    }
  };

  const alterTable = (place: Place, table: EntityModel, change: TableAlteration): void => {
    const offset = change._location?.start;
    switch (change.type) {
      case 'add constraint':
        return addConstraint(place, table, change.constraint);
      case 'add column':
        if (change.ifNotExists && table.fields.some((f) => f.name === change.column.name.name)) {
          return;
        }
        return addColumn(place, table, change.column);
      case 'drop column':
        if (!change.ifExists || table.fields.some((f) => f.name === change.column.name)) {
          fieldNamed(place, table, change.column.name, offset);
          table.fields = table.fields.filter((f) => f.name !== change.column.name);
          table.primaryKey = table.primaryKey.filter((f) => f !== change.column.name);
        }
        return;
      case 'alter column': {
        const field = fieldNamed(place, table, change.column.name, offset);
        const alter = change.alter;
        if (alter.type === 'set not null' || alter.type === 'drop not null') {
          field.required = alter.type === 'set not null' || table.primaryKey.includes(field.name);
          field.nullable = !field.required;
        } else if (alter.type === 'set type') {
          const dataType = alter.dataType as { name?: string; kind?: string };
          field.type = dataType.name ?? dataType.kind ?? 'unknown';
        } else if (alter.type === 'set default') {
          field.default = defaultOf(alter.default);
        } else if (alter.type === 'drop default') {
          delete field.default;
        } else if (alter.type === 'add generated') {
          field.default = identityDefault;
        }
        return;
      }
      case 'owner':
        return skip(place, 'ownership (ALTER … OWNER TO)', 'roles are not modelled', offset);
      default:
        return skip(place, `ALTER TABLE … ${change.type.toUpperCase()}`, 'not applied to the model', offset);
    }
  };

  /** A unique index on plain columns is a unique key, as Rails-style schemas declare them; other indexes are speed. */
  const createIndex = (place: Place, statement: CreateIndexStatement): void => {
    const columns = statement.expressions.map((e) => (e.expression.type === 'ref' ? e.expression.name : undefined));
    if (!statement.unique || statement.where || columns.some((c) => c === undefined)) {
      return skip(place, 'CREATE INDEX', 'indexes change speed, not shape');
    }
    const table = tableNamed(place, statement.table.name, statement.table._location?.start, 'CREATE UNIQUE INDEX');
    columns.forEach((name) => fieldNamed(place, table, name as string, statement._location?.start));
    table.uniqueKeys = [...(table.uniqueKeys ?? []), columns as string[]];
  };

  const readStatement = (place: Place, sql: SqlStatement): void => {
    if (sql.metaCommand) {
      return skip(place, metaCommandKind.kind, metaCommandKind.reason);
    }
    const known = skippedKindOf(sql.code);
    if (known) {
      return skip(place, known.kind, known.reason);
    }
    let statement: Statement;
    try {
      [statement] = parse(withoutShapelessClauses(sql.code), { locationTracking: true });
    } catch (error) {
      throw dataSchemaError(invalidSql(place, error as Error));
    }
    if (statement.type === 'create table') {
      createTable(place, statement);
    } else if (statement.type === 'alter table') {
      const table = tableNamed(place, statement.table.name, statement.table._location?.start, 'ALTER TABLE');
      statement.changes.forEach((change) => alterTable(place, table, change));
    } else if (statement.type === 'create index') {
      createIndex(place, statement);
    } else {
      skip(place, statement.type.toUpperCase(), 'not a table definition');
    }
  };

  for (const file of sqlFiles) {
    const text = files.read(file).toString('utf8');
    const starts = lineStarts(text);
    let statements: SqlStatement[];
    try {
      statements = splitSqlStatements(text);
    } catch (error) {
      if (!(error instanceof SqlLexicalError)) {
        throw error;
      }
      throw dataSchemaError({
        file,
        line: lineOfOffset(starts, error.offset),
        pointer: '',
        message: `invalid SQL: ${error.message}`,
      });
    }
    for (const sql of statements) {
      readStatement({ file, line: (offset = 0) => lineOfOffset(starts, sql.offset + offset) }, sql);
    }
  }

  const entities = [...tables.values()].map((t) => t.entity);
  const dangling: IngestionProblem[] = relations
    .filter((r) => !tables.has(r.to.entity))
    .map((r) => ({
      file: r.file,
      line: r.line,
      pointer: '',
      message: `foreign key from ${r.from.entity}(${r.from.fields.join(', ')}) references unknown table "${r.to.entity}"`,
    }));
  if (dangling.length > 0) {
    throw new IngestionError('DATA_SCHEMA_INVALID', dangling);
  }
  return {
    entities,
    relations: relations.map(({ from, to, origin }) => ({ from, to, origin })),
    warnings: [...skipped.values()].map(skippedWarning),
  };
};

const skippedWarning = ({ file, kind, reason, lines }: Skipped): StackWarning => {
  const location = { file, line: lines[0], pointer: '' };
  const more = lines.length > 1 ? ` (lines ${lines.slice(0, 6).join(', ')}${lines.length > 6 ? ', …' : ''})` : '';
  return {
    location: formatLocation(location),
    ...location,
    message: `skipped ${lines.length} ${kind} statement${lines.length === 1 ? '' : 's'}${more}: ${reason}`,
  };
};

/** pgsql-ast-parser's message, reduced to its first useful line and placed at the file's line. */
const invalidSql = (place: Place, error: Error): IngestionProblem => {
  const message = error.message;
  const position = /line (\d+) col (\d+)/.exec(message);
  const reason = message.split('\n').find((line) => line.startsWith('Unexpected')) ?? message.split('\n')[0];
  return {
    file: place.file,
    line: place.line() + (position ? Number(position[1]) - 1 : 0),
    pointer: '',
    message: `invalid SQL: ${reason.replace(/\. (Instead|I did not expect).*$/, '')}`,
  };
};
