/**
 * How an OpenAPI document's keywords nest. The same classification drives reference bundling (what is a schema,
 * to be hoisted; what is example data, never to be touched) and schema linting, so both agree on what a schema is.
 */
export type ValueContext = 'document' | 'schema' | 'schema-map' | 'data';

const schemaMapKeywords = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
const schemaDataKeywords = new Set(['example', 'examples', 'default', 'enum', 'const', 'required', 'discriminator']);
const documentDataKeywords = new Set(['example', 'value', 'default', 'enum', 'required', 'security']);

export const childContext = (context: ValueContext, key: string, parentKey: string | undefined): ValueContext => {
  switch (context) {
    case 'data':
      return 'data';
    case 'schema-map':
      return 'schema';
    case 'schema':
      if (key.startsWith('x-') || schemaDataKeywords.has(key)) {
        return 'data';
      }
      return schemaMapKeywords.has(key) ? 'schema-map' : 'schema';
    case 'document':
      if (key === 'schema') {
        return 'schema';
      }
      if ((key === 'schemas' && parentKey === 'components') || (key === 'definitions' && parentKey === undefined)) {
        return 'schema-map';
      }
      // `default` is example data on a Swagger parameter but the catch-all Response Object under `responses`.
      return documentDataKeywords.has(key) && !(key === 'default' && parentKey === 'responses') ? 'data' : 'document';
  }
};

/** Calls `visit` for every schema object of a (bundled) document, with its JSON pointer. */
export const visitSchemas = (
  document: unknown,
  visit: (schema: Record<string, unknown>, pointer: string) => void,
): void => {
  const walk = (value: unknown, pointer: string, context: ValueContext, parentKey: string | undefined): void => {
    if (value === null || typeof value !== 'object' || context === 'data') {
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) =>
        walk(item, `${pointer}/${index}`, context === 'schema-map' ? 'schema' : context, parentKey),
      );
      return;
    }
    const record = value as Record<string, unknown>;
    if (context === 'schema') {
      visit(record, pointer);
    }
    for (const key of Object.keys(record)) {
      const escaped = key.replace(/~/g, '~0').replace(/\//g, '~1');
      walk(record[key], `${pointer}/${escaped}`, childContext(context, key, parentKey), key);
    }
  };
  walk(document, '', 'document', undefined);
};
