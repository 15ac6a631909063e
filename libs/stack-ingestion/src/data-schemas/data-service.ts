import { EntityModel, FieldModel, ServiceModel } from '@libs/stack-model';

import { extractErrorShapes, extractOperations, extractSecuritySchemes } from '../openapi/operation-extraction';

/** A column's JSON Schema from its SQL type (PostgreSQL's names and aliases) or its JSON Schema type. */
export const columnSchema = (field: FieldModel): Record<string, unknown> => {
  const type = field.type.toLowerCase();
  let schema: Record<string, unknown>;
  if (
    /^(int|int2|int4|int8|integer|smallint|bigint|serial|serial2|serial4|serial8|smallserial|bigserial)$/.test(type)
  ) {
    schema = { type: 'integer' };
  } else if (/^(numeric|decimal|real|float4|float8|double precision|double|money|number)$/.test(type)) {
    schema = { type: 'number' };
  } else if (/^(bool|boolean)$/.test(type)) {
    schema = { type: 'boolean' };
  } else if (type === 'uuid') {
    schema = { type: 'string', format: 'uuid' };
  } else if (/^timestamp/.test(type)) {
    schema = { type: 'string', format: 'date-time' };
  } else if (type === 'date') {
    schema = { type: 'string', format: 'date' };
  } else if (/^(json|jsonb|object|any|reference)$/.test(type)) {
    schema = type === 'object' ? { type: 'object' } : {};
  } else if (type === 'array') {
    schema = { type: 'array', items: {} };
  } else if (type.includes('|')) {
    schema = { type: type.split('|') };
  } else {
    schema = { type: 'string' };
  }
  if (field.format && !schema.format) {
    schema.format = field.format;
  }
  if (field.enum) {
    schema.enum = field.enum;
  }
  return field.nullable && !Array.isArray(schema.type) && schema.type ? { ...schema, nullable: true } : schema;
};

/** The JSON Schema of a row of an entity's table: what the served document and the world's synthesis read. */
export const rowSchema = (entity: EntityModel): Record<string, unknown> => ({
  type: 'object',
  properties: Object.fromEntries(entity.fields.map((field) => [field.name, columnSchema(field)])),
  required: entity.fields.filter((field) => field.required).map((field) => field.name),
});

const error = { $ref: '#/components/schemas/PostgrestError' };
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: error } },
});
const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: { type: 'string' },
});
// Declared so that every read's answer is keyed on them: the same query with another range is another answer, and a
// call without the `apikey` a cached answer was given for is not given it.
const readHeaders = [
  header('apikey', 'the bearer token, when no Authorization header carries it'),
  header('Range', 'rows to answer, `0-9`'),
  header('Prefer', '`count=exact`'),
  header('Accept', '`application/vnd.pgrst.object+json` for one row'),
];
const writeHeaders = [header('Prefer', '`return=representation|minimal`, `resolution=merge-duplicates`')];

/**
 * The OpenAPI document of a data service, as PostgREST describes a database at its root: a path per table with its
 * verbs, each table's row schema, and PostgREST's error body. Horizontal filters are any query parameter (`col=op.val`),
 * which OpenAPI cannot name one by one; the twin reads them, this document only says they exist.
 */
const dataDocument = (name: string, entities: EntityModel[], baseUrl: string | undefined) => {
  const rows = (table: string) => ({ type: 'array', items: { $ref: `#/components/schemas/${table}` } });
  const paths = Object.fromEntries(
    entities.map((entity) => {
      const table = entity.name;
      const ref = { $ref: `#/components/schemas/${table}` };
      const ok = (description: string) => ({
        description,
        content: { 'application/json': { schema: rows(table) } },
      });
      return [
        `/${table}`,
        {
          get: {
            operationId: `get_${table}`,
            tags: [table],
            parameters: readHeaders,
            responses: { '200': ok('the rows'), '206': ok('a range of the rows'), '400': errorResponse('bad query') },
          },
          head: {
            operationId: `head_${table}`,
            tags: [table],
            parameters: readHeaders,
            responses: { '200': { description: 'the count only' } },
          },
          post: {
            operationId: `post_${table}`,
            tags: [table],
            parameters: writeHeaders,
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { oneOf: [ref, rows(table)] } } },
            },
            responses: { '201': ok('created'), '400': errorResponse('bad row'), '409': errorResponse('conflict') },
          },
          patch: {
            operationId: `patch_${table}`,
            tags: [table],
            parameters: writeHeaders,
            requestBody: { required: true, content: { 'application/json': { schema: ref } } },
            responses: { '200': ok('updated'), '204': { description: 'updated' }, '400': errorResponse('bad row') },
          },
          delete: {
            operationId: `delete_${table}`,
            tags: [table],
            parameters: writeHeaders,
            responses: { '200': ok('deleted'), '204': { description: 'deleted' }, '400': errorResponse('bad query') },
          },
        },
      ];
    }),
  );
  return {
    openapi: '3.0.3',
    info: { title: name, version: '1', description: 'Tables of the data schemas, served with PostgREST conventions.' },
    servers: [{ url: baseUrl ?? '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        ...Object.fromEntries(entities.map((entity) => [entity.name, rowSchema(entity)])),
        PostgrestError: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string' },
            message: { type: 'string' },
            details: { type: 'string', nullable: true },
            hint: { type: 'string', nullable: true },
          },
        },
      },
    },
  };
};

/**
 * A service that serves the tables of data schema files (`schema:` in mirror.yaml), PostgREST-style: the tables are
 * the entities read from those files, the world's rows follow their keys, and the twin engine answers its calls.
 */
export const dataService = (
  name: string,
  files: string[],
  entities: EntityModel[],
  baseUrl: string | undefined,
): ServiceModel => {
  const served = entities.filter((entity) => files.includes(entity.source.file));
  const document = dataDocument(name, served, baseUrl) as Record<string, unknown>;
  const operations = extractOperations(document);
  return {
    name,
    title: name,
    apiVersion: '1',
    dialect: 'openapi-3.0',
    sourceFile: files[0],
    servers: baseUrl ? [baseUrl] : [],
    operations,
    // No generic CRUD resources: the rows are the tables', and the twin engine serves them as PostgREST does.
    resources: [],
    webhooks: [],
    securitySchemes: extractSecuritySchemes(document),
    errorShapes: extractErrorShapes(operations),
    document,
    tables: served.map((entity) => entity.name),
  };
};
