import type { FieldModel, RelationModel, ServiceModel, StackModel } from '@libs/stack-ingestion';

/** How the twin reads and compares a column's values, from its SQL or JSON Schema type. */
export type ColumnKind = 'integer' | 'number' | 'boolean' | 'uuid' | 'timestamp' | 'date' | 'json' | 'text';

export interface Column {
  name: string;
  kind: ColumnKind;
  /** The type's name as the schema wrote it, for error messages (`invalid input syntax for type integer`). */
  typeName: string;
  nullable: boolean;
  default?: FieldModel['default'];
  /** What a `CHECK (col IN (…))` allows. */
  allowed?: readonly (string | number)[];
  /** A key the database fills itself (`serial`, `identity`-like integers, `DEFAULT nextval(…)`). */
  serial: boolean;
}

/** A foreign key between two served tables. */
export interface TableRelation {
  from: string;
  fromColumns: string[];
  to: string;
  toColumns: string[];
  declared: boolean;
}

export interface Table {
  name: string;
  /** The state key of its rows: `<service>/<table>`. */
  key: string;
  columns: Map<string, Column>;
  primaryKey: string[];
}

const kindOf = (type: string): ColumnKind => {
  const t = type.toLowerCase();
  if (/^(int|int2|int4|int8|integer|smallint|bigint|serial|serial2|serial4|serial8|smallserial|bigserial)$/.test(t)) {
    return 'integer';
  }
  if (/^(numeric|decimal|real|float4|float8|double precision|double|money|number)$/.test(t)) {
    return 'number';
  }
  if (/^(bool|boolean)$/.test(t)) {
    return 'boolean';
  }
  if (t === 'uuid') {
    return 'uuid';
  }
  if (/^timestamp/.test(t)) {
    return 'timestamp';
  }
  if (t === 'date') {
    return 'date';
  }
  return /^(json|jsonb|object|array|any|reference)$/.test(t) || t.includes('|') ? 'json' : 'text';
};

/** The served tables of a data service and the foreign keys between them, by table name. */
export class TableCatalogue {
  readonly tables = new Map<string, Table>();
  readonly relations: TableRelation[];

  constructor(model: StackModel, service: ServiceModel) {
    const served = new Set(service.tables ?? []);
    for (const entity of model.entities.filter((e) => served.has(e.name))) {
      this.tables.set(entity.name, {
        name: entity.name,
        key: `${service.name}/${entity.name}`,
        primaryKey: entity.primaryKey,
        columns: new Map(
          entity.fields.map((field) => [
            field.name,
            {
              name: field.name,
              kind: kindOf(field.type),
              typeName: field.type,
              nullable: field.nullable,
              ...(field.default ? { default: field.default } : {}),
              ...(field.enum ? { allowed: field.enum } : {}),
              serial:
                /serial/i.test(field.type) ||
                (field.default !== undefined &&
                  'expression' in field.default &&
                  /nextval|generated identity/i.test(field.default.expression)),
            },
          ]),
        ),
      });
    }
    this.relations = model.relations
      .filter(
        (r: RelationModel) =>
          this.tables.has(r.from.entity) &&
          this.tables.has(r.to.entity) &&
          r.from.fields.length === r.to.fields.length &&
          r.from.fields.every((f) => this.tables.get(r.from.entity)?.columns.has(f)) &&
          r.to.fields.every((f) => this.tables.get(r.to.entity)?.columns.has(f)),
      )
      .map((r) => ({
        from: r.from.entity,
        fromColumns: r.from.fields,
        to: r.to.entity,
        toColumns: r.to.fields,
        declared: r.origin === 'declared',
      }));
  }
}
