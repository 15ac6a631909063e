/**
 * OpenAPI 3.0 (and Swagger-converted) schemas are almost JSON Schema. The differences that matter to a validator:
 * `nullable`, boolean `exclusiveMinimum/Maximum`, and references into the OpenAPI document. This converts a whole
 * document once so that ajv can validate any schema in it by pointer.
 */
export const documentSchemaId = 'mirror:document';

type Json = unknown;

export interface ConversionOptions {
  /** OpenAPI 3.0 and Swagger ignore the siblings of a `$ref` (Xero's spec has `$ref` next to a contradicting type). */
  refSiblingsIgnored: boolean;
  /**
   * Drop `examples` and `x-*` from schemas: they hold example data, which a validator never reads and which ajv would
   * otherwise scan for `$id`s (`"$id": "https://{host}/…"` in an example is data, not a schema's identity).
   */
  exampleDataDropped?: boolean;
}

export const conversionFor = (dialect: string): ConversionOptions => ({
  refSiblingsIgnored: dialect !== 'openapi-3.1',
});

/** Keywords whose value maps names to schemas: its keys are names (a property may be called `type`), not keywords. */
const schemaMapKeywords = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

export const convertSchema = (schema: Json, options: ConversionOptions, depth = 0, isMap = false): Json => {
  if (Array.isArray(schema)) {
    return schema.map((item) => convertSchema(item, options, depth + 1));
  }
  if (schema === null || typeof schema !== 'object') {
    return schema;
  }
  if (isMap) {
    return Object.fromEntries(
      Object.entries(schema as Record<string, Json>).map(([name, value]) => [
        name,
        convertSchema(value, options, depth + 1),
      ]),
    );
  }
  const original = schema as Record<string, Json>;
  const source = options.refSiblingsIgnored && typeof original.$ref === 'string' ? { $ref: original.$ref } : original;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.startsWith('#') ? `${documentSchemaId}${value}` : value;
    } else if (
      key === 'nullable' ||
      key === 'example' ||
      key === 'discriminator' ||
      key === 'xml' ||
      key === 'externalDocs'
    ) {
      continue;
    } else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'boolean') {
      const bound = key === 'exclusiveMinimum' ? source.minimum : source.maximum;
      if (value && typeof bound === 'number') {
        out[key] = bound;
      }
    } else if (
      (key === 'minimum' || key === 'maximum') &&
      source[key === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum'] === true
    ) {
      continue;
    } else if (key.startsWith('x-') || key === 'examples') {
      if (!options.exampleDataDropped) {
        out[key] = value;
      }
    } else if (key === 'default' || key === 'enum' || key === 'const') {
      out[key] = value;
    } else if (unenforceableKeyword(key, value) !== undefined) {
      // Ingestion warned; a bound no value can meet (`minimum: 1e400`, `multipleOf: 0`) would refuse every request.
      continue;
    } else if (key === 'required' && Array.isArray(value)) {
      out.required = [...new Set(value)];
    } else {
      out[key] = convertSchema(value, options, depth + 1, schemaMapKeywords.has(key));
    }
  }
  if (source.nullable === true) {
    return nullableOf(out);
  }
  return out;
};

const numericKeywords = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
]);
const jsonTypes = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/**
 * Why a schema keyword's value cannot be enforced as written, or undefined when it can: a numeric bound that is not a
 * finite number (YAML reads `1e400` as Infinity, which is stored as null), `multipleOf` of zero or less, a `type`
 * that names no JSON type, a `pattern` that is not text. Shared by ingestion (a warning) and validation (dropped).
 */
export const unenforceableKeyword = (key: string, value: unknown): string | undefined => {
  if (numericKeywords.has(key)) {
    if (typeof value === 'boolean' && (key === 'exclusiveMinimum' || key === 'exclusiveMaximum')) {
      return undefined;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return `"${key}" must be a finite number, found ${JSON.stringify(value) ?? String(value)}`;
    }
    if (key === 'multipleOf' && value <= 0) {
      return `"multipleOf" must be greater than 0, found ${value}`;
    }
    if (key !== 'minimum' && key !== 'maximum' && !key.startsWith('exclusive') && key !== 'multipleOf' && value < 0) {
      return `"${key}" must not be negative, found ${value}`;
    }
    return undefined;
  }
  if (key === 'type') {
    const types = Array.isArray(value) ? value : [value];
    return types.length > 0 && types.every((type) => typeof type === 'string' && jsonTypes.has(type))
      ? undefined
      : `"type" must name JSON types (string, number, integer, boolean, object, array, null), found ${JSON.stringify(value)}`;
  }
  if (key === 'pattern' && typeof value !== 'string') {
    return `"pattern" must be a string, found ${JSON.stringify(value)}`;
  }
  return undefined;
};

/**
 * `nullable: true` becomes an explicit null alternative, in whichever form keeps the schema's meaning. It widens the
 * type only: an `enum` keeps its own say (OpenAPI 3.0.3: "other Schema Object constraints retain their defined
 * behavior, and therefore may disallow the use of null"), so null is a member only when the enum lists it.
 */
const nullableOf = (schema: Record<string, Json>): Record<string, Json> => {
  if (typeof schema.type === 'string') {
    return { ...schema, type: [schema.type, 'null'] };
  }
  if (Array.isArray(schema.type)) {
    return schema.type.includes('null') ? schema : { ...schema, type: [...(schema.type as Json[]), 'null'] };
  }
  return { anyOf: [schema, { type: 'null' }] };
};

/**
 * Objects of an OpenAPI document whose keys are names chosen by the spec's author (a header may be called
 * `x-request-id`, a schema `examples`), not fields of the specification.
 */
const nameMapKeys = new Set([
  'paths',
  'webhooks',
  'responses',
  'parameters',
  'headers',
  'content',
  'encoding',
  'links',
  'callbacks',
  'requestBodies',
  'securitySchemes',
  'securityDefinitions',
  'pathItems',
]);

/**
 * The document as one JSON Schema resource: every `#/…` reference is rewritten to the document's id, so a
 * validator for `/paths/~1pets/get/…/schema` or `/components/schemas/Pet` resolves references exactly as the spec
 * does. Only values under schema positions are converted; the rest is copied as is, except example data
 * (`example`, `examples`, `x-*` extensions), which no validator reads and whose `$id`s ajv must never see.
 */
export const toJsonSchemaDocument = (
  document: Record<string, unknown>,
  options: ConversionOptions,
): Record<string, unknown> => {
  const schemaOptions = { ...options, exampleDataDropped: true };
  const walk = (value: Json, inSchema: boolean, isNameMap: boolean): Json => {
    if (inSchema) {
      return convertSchema(value, schemaOptions);
    }
    if (Array.isArray(value)) {
      return value.map((item) => walk(item, false, false));
    }
    if (value === null || typeof value !== 'object') {
      return value;
    }
    const out: Record<string, Json> = {};
    for (const [key, child] of Object.entries(value as Record<string, Json>)) {
      if (isNameMap) {
        out[key] = walk(child, false, false);
      } else if (key === '$ref' && typeof child === 'string') {
        out.$ref = child.startsWith('#') ? `${documentSchemaId}${child}` : child;
      } else if (key === 'schemas' || key === 'definitions') {
        out[key] = Object.fromEntries(
          Object.entries((child ?? {}) as Record<string, Json>).map(([name, s]) => [
            name,
            convertSchema(s, schemaOptions),
          ]),
        );
      } else if (key === 'example' || key === 'examples' || key.startsWith('x-')) {
        continue;
      } else {
        out[key] = walk(child, key === 'schema', nameMapKeys.has(key));
      }
    }
    return out;
  };
  return { ...(walk(document, false, false) as Record<string, unknown>), $id: documentSchemaId };
};
