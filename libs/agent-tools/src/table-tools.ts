import { type EntityModel, type HttpMethod, type ServiceModel, snakeCase } from '@libs/stack-model';

import { annotationsOf } from './operation-tools';
import { ArgumentCandidate, flatArguments } from './tool-arguments';
import type { JsonSchema, ToolDefinition } from './tool-contract';
import { selfContainedSchema } from './schema-inlining';

type TableVerb = 'list' | 'insert' | 'update' | 'delete';

const methods: Record<TableVerb, HttpMethod> = { list: 'get', insert: 'post', update: 'patch', delete: 'delete' };

/** Each column's JSON Schema as the data service's document holds it (built from the entity model at ingest). */
const columnSchemas = (service: ServiceModel, table: string): Record<string, JsonSchema> => {
  const row = selfContainedSchema(service.document, { $ref: `#/components/schemas/${table}` }, service.dialect);
  return (row.properties as Record<string, JsonSchema> | undefined) ?? {};
};

const filtersSchema = (columns: string[], required: boolean): JsonSchema => ({
  type: 'object',
  description:
    'PostgREST filters, one per column: operator and value, e.g. {"status": "eq.open", "amount": "gte.100", ' +
    '"name": "ilike.*smith*", "id": "in.(1,2,3)"}; "or"/"and" take a group, e.g. "(status.eq.open,amount.gt.5)".' +
    (required ? ' At least one: a write without filters would change every row.' : ''),
  properties: Object.fromEntries([...columns, 'or', 'and'].map((column) => [column, { type: 'string' }])),
  additionalProperties: false,
  ...(required ? { minProperties: 1 } : {}),
});

const listArguments = (columns: string[]): ArgumentCandidate[] => [
  { in: 'query-map', name: 'filters', schema: filtersSchema(columns, false), required: false },
  {
    in: 'query',
    name: 'select',
    schema: { type: 'string', description: `Columns to return, comma-separated (default all): ${columns.join(',')}` },
    required: false,
  },
  {
    in: 'query',
    name: 'order',
    schema: { type: 'string', description: 'Sort order, e.g. "created_at.desc,id.asc"' },
    required: false,
  },
  { in: 'query', name: 'limit', schema: { type: 'integer', minimum: 0 }, required: false },
  { in: 'query', name: 'offset', schema: { type: 'integer', minimum: 0 }, required: false },
];

/** A column the database fills itself (a default, a sequence) or may leave empty need not be given. */
const mustGive = (entity: EntityModel | undefined, column: string): boolean => {
  const field = entity?.fields.find((f) => f.name === column);
  return Boolean(field && field.required && !field.nullable && !field.default && !/serial/i.test(field.type));
};

const argumentsOf = (
  verb: TableVerb,
  columns: Record<string, JsonSchema>,
  entity: EntityModel | undefined,
): ArgumentCandidate[] => {
  const names = Object.keys(columns);
  switch (verb) {
    case 'list':
      return listArguments(names);
    case 'insert':
      return names.map((name) => ({ in: 'body-field', name, schema: columns[name], required: mustGive(entity, name) }));
    case 'update':
      return [
        { in: 'query-map', name: 'filters', schema: filtersSchema(names, true), required: true },
        {
          in: 'body',
          name: 'values',
          schema: {
            type: 'object',
            description: 'The new values of the columns to change',
            properties: columns,
            additionalProperties: false,
            minProperties: 1,
          },
          required: true,
        },
      ];
    case 'delete':
      return [{ in: 'query-map', name: 'filters', schema: filtersSchema(names, true), required: true }];
  }
};

const descriptions: Record<TableVerb, (table: string, service: string) => string> = {
  list: (table, service) => `List rows of the ${table} table of ${service}, filtered, sorted and paged (PostgREST).`,
  insert: (table, service) => `Insert one row into the ${table} table of ${service}; answers the row as stored.`,
  update: (table, service) => `Update the rows of the ${table} table of ${service} that match the filters.`,
  delete: (table, service) => `Delete the rows of the ${table} table of ${service} that match the filters.`,
};

/**
 * A data service's table as four tools (list, insert, update, delete), served PostgREST-style by the twin engine.
 * `names` maps each verb's operation id (`list_invoices`) to its settled tool name.
 */
export const tableTools = (
  service: ServiceModel,
  table: string,
  entities: readonly EntityModel[],
  names: (operation: string) => string | undefined,
): ToolDefinition[] => {
  const columns = columnSchemas(service, table);
  const entity = entities.find((e) => e.name === table);
  return (['list', 'insert', 'update', 'delete'] as const).flatMap((verb) => {
    const operationId = `${verb}_${snakeCase(table)}`;
    const name = names(operationId);
    if (!name) {
      return [];
    }
    const { inputSchema, arguments: placements } = flatArguments(argumentsOf(verb, columns, entity));
    return [
      {
        name,
        description: descriptions[verb](table, service.name),
        inputSchema,
        annotations: annotationsOf(methods[verb], `${verb} ${table}`),
        target: {
          kind: 'operation' as const,
          service: service.name,
          operationId,
          method: methods[verb],
          path: `/${encodeURIComponent(table)}`,
          ...(verb === 'insert' || verb === 'update' ? { contentType: 'application/json' } : {}),
          ...(verb === 'list' ? {} : { headers: { prefer: 'return=representation' } }),
          arguments: placements,
        },
      },
    ];
  });
};
