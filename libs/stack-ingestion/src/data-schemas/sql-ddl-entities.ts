import { Expr, parse, Statement, toSql } from 'pgsql-ast-parser';

import { BundleFiles } from '../bundle/bundle-files';
import { IngestionError, IngestionProblem } from '../ingestion.error';
import { EntityModel, FieldModel, RelationModel } from '../model/stack-model';
import { SchemaEntities } from './json-schema-entities';

/** pgsql-ast-parser prints `now()` as `(now () )`: the text a reader expects. */
const sqlText = (expr: Expr): string =>
  toSql
    .expr(expr)
    .replace(/\s+(?=[()])|(?<=\()\s+/g, '')
    .replace(/^\((.*)\)$/, '$1')
    .trim();

/** A column default as data: literals by value, the rest (`now()`, `nextval('…')`) as the SQL that computes it. */
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

const lineAt = (text: string, offset: number | undefined): number | undefined =>
  offset === undefined ? undefined : text.slice(0, offset).split('\n').length;

/**
 * SQL DDL (PostgreSQL dialect) becomes entities: one per `CREATE TABLE`, with primary keys and foreign keys (column
 * or table constraints) as declared relations. Other statements (indexes, grants, comments) are skipped.
 */
export const readSqlEntities = (files: BundleFiles, sqlFiles: string[]): SchemaEntities => {
  const entities: EntityModel[] = [];
  const relations: (RelationModel & { file: string; line?: number })[] = [];
  for (const file of sqlFiles) {
    const text = files.read(file).toString('utf8');
    let statements: Statement[];
    try {
      statements = parse(text, { locationTracking: true });
    } catch (error) {
      const message = (error as Error).message;
      const position = /line (\d+) col (\d+)/.exec(message);
      const reason = message.split('\n').find((line) => line.startsWith('Unexpected')) ?? message.split('\n')[0];
      throw IngestionError.single('DATA_SCHEMA_INVALID', {
        file,
        ...(position ? { line: Number(position[1]) } : {}),
        pointer: '',
        message: `invalid SQL: ${reason.replace(/\. Instead.*$/, '')}`,
      });
    }
    for (const statement of statements) {
      if (statement.type !== 'create table') {
        continue;
      }
      const table = statement;
      const name = table.name.name;
      const primaryKey: string[] = [];
      const fields: FieldModel[] = [];
      for (const column of table.columns) {
        if (column.kind !== 'column') {
          continue;
        }
        const constraints = column.constraints ?? [];
        const isPrimary = constraints.some((c) => c.type === 'primary key');
        if (isPrimary) {
          primaryKey.push(column.name.name);
        }
        const notNull = constraints.some((c) => c.type === 'not null');
        const dataType = column.dataType as { name?: string; kind?: string };
        const defaulted = constraints.find((c) => c.type === 'default');
        fields.push({
          name: column.name.name,
          type: dataType.name ?? dataType.kind ?? 'unknown',
          required: notNull || isPrimary,
          nullable: !notNull && !isPrimary,
          ...(defaulted ? { default: defaultOf(defaulted.default) } : {}),
        });
        for (const constraint of constraints) {
          const allowed = constraint.type === 'check' ? allowedValues(constraint.expr) : undefined;
          if (allowed?.column === column.name.name) {
            fields[fields.length - 1].enum = allowed.values;
          }
        }
        for (const constraint of constraints) {
          if (constraint.type === 'reference') {
            relations.push({
              from: { entity: name, fields: [column.name.name] },
              to: { entity: constraint.foreignTable.name, fields: constraint.foreignColumns.map((c) => c.name) },
              origin: 'declared',
              file,
              line: lineAt(text, constraint._location?.start),
            });
          }
        }
      }
      for (const constraint of table.constraints ?? []) {
        const allowed = constraint.type === 'check' ? allowedValues(constraint.expr) : undefined;
        const constrained = fields.find((field) => field.name === allowed?.column);
        if (allowed && constrained) {
          constrained.enum = allowed.values;
        }
        if (constraint.type === 'primary key') {
          primaryKey.push(...constraint.columns.map((c) => c.name));
        } else if (constraint.type === 'foreign key') {
          relations.push({
            from: { entity: name, fields: constraint.localColumns.map((c) => c.name) },
            to: { entity: constraint.foreignTable.name, fields: constraint.foreignColumns.map((c) => c.name) },
            origin: 'declared',
            file,
            line: lineAt(text, constraint._location?.start),
          });
        }
      }
      entities.push({ name, source: { file, kind: 'sql' }, primaryKey, fields, resources: [] });
    }
  }
  const tables = new Set(entities.map((e) => e.name));
  const dangling: IngestionProblem[] = relations
    .filter((r) => !tables.has(r.to.entity))
    .map((r) => ({
      file: r.file,
      ...(r.line !== undefined ? { line: r.line } : {}),
      pointer: '',
      message: `foreign key from ${r.from.entity}(${r.from.fields.join(', ')}) references unknown table "${r.to.entity}"`,
    }));
  if (dangling.length > 0) {
    throw new IngestionError('DATA_SCHEMA_INVALID', dangling);
  }
  return { entities, relations: relations.map(({ from, to, origin }) => ({ from, to, origin })) };
};
