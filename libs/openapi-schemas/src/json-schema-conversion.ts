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
}

export const conversionFor = (dialect: string): ConversionOptions => ({
  refSiblingsIgnored: dialect !== 'openapi-3.1',
});

export const convertSchema = (schema: Json, options: ConversionOptions, depth = 0): Json => {
  if (Array.isArray(schema)) {
    return schema.map((item) => convertSchema(item, options, depth + 1));
  }
  if (schema === null || typeof schema !== 'object') {
    return schema;
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
    } else if (key.startsWith('x-') || key === 'examples' || key === 'default' || key === 'enum' || key === 'const') {
      out[key] = value;
    } else {
      out[key] = convertSchema(value, options, depth + 1);
    }
  }
  if (source.nullable === true) {
    return nullableOf(out);
  }
  return out;
};

/** `nullable: true` becomes an explicit null alternative, in whichever form keeps the schema's meaning. */
const nullableOf = (schema: Record<string, Json>): Record<string, Json> => {
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) {
    schema.enum = [...(schema.enum as Json[]), null];
  }
  if (typeof schema.type === 'string') {
    return { ...schema, type: [schema.type, 'null'] };
  }
  if (Array.isArray(schema.type)) {
    return schema.type.includes('null') ? schema : { ...schema, type: [...(schema.type as Json[]), 'null'] };
  }
  return { anyOf: [schema, { type: 'null' }] };
};

/**
 * The document as one JSON Schema resource: every `#/…` reference is rewritten to the document's id, so a
 * validator for `/paths/~1pets/get/…/schema` or `/components/schemas/Pet` resolves references exactly as the spec
 * does. Only values under schema positions are converted; the rest is copied as is.
 */
export const toJsonSchemaDocument = (
  document: Record<string, unknown>,
  options: ConversionOptions,
): Record<string, unknown> => {
  const walk = (value: Json, inSchema: boolean): Json => {
    if (inSchema) {
      return convertSchema(value, options);
    }
    if (Array.isArray(value)) {
      return value.map((item) => walk(item, false));
    }
    if (value === null || typeof value !== 'object') {
      return value;
    }
    const out: Record<string, Json> = {};
    for (const [key, child] of Object.entries(value as Record<string, Json>)) {
      if (key === '$ref' && typeof child === 'string') {
        out.$ref = child.startsWith('#') ? `${documentSchemaId}${child}` : child;
      } else if (key === 'schemas' || key === 'definitions') {
        out[key] = Object.fromEntries(
          Object.entries((child ?? {}) as Record<string, Json>).map(([name, s]) => [name, convertSchema(s, options)]),
        );
      } else if (key === 'example' || key === 'examples') {
        out[key] = child;
      } else {
        out[key] = walk(child, key === 'schema');
      }
    }
    return out;
  };
  return { ...(walk(document, false) as Record<string, unknown>), $id: documentSchemaId };
};
