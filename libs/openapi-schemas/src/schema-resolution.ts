import { getAtPointer } from '@libs/bundle-documents';

export type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Follows `$ref`s within one document until a schema with content; cycles stop at the hop limit. */
export const resolveSchema = (document: unknown, schema: unknown): Schema => {
  let current = schema;
  for (let hops = 0; hops < 32 && isSchema(current) && typeof current.$ref === 'string'; hops++) {
    const reference = current.$ref;
    current = reference.startsWith('#') ? getAtPointer(document, decodeURIComponent(reference.slice(1))) : undefined;
  }
  return isSchema(current) ? current : {};
};

/** The schema's own pointer when it is a bare `$ref`: useful as a cache key for what it names. */
export const referenceOf = (schema: unknown): string | undefined =>
  isSchema(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith('#') ? schema.$ref.slice(1) : undefined;

/**
 * Merges an `allOf` into one object schema (properties and required lists united), as code generators do; the
 * result is what a record of that type looks like. Non-object members (constraints) are folded in shallowly.
 */
export const flattenSchema = (document: unknown, schema: unknown, depth = 0): Schema => {
  const resolved = resolveSchema(document, schema);
  if (!Array.isArray(resolved.allOf) || depth > 16) {
    return resolved;
  }
  const { allOf, ...rest } = resolved;
  const merged: Schema = { ...rest };
  const properties: Record<string, unknown> = { ...((rest.properties as Record<string, unknown>) ?? {}) };
  const required = new Set<string>(Array.isArray(rest.required) ? rest.required.map(String) : []);
  for (const member of allOf as unknown[]) {
    const part = flattenSchema(document, member, depth + 1);
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties') {
        Object.assign(properties, value as Record<string, unknown>);
      } else if (key === 'required' && Array.isArray(value)) {
        value.forEach((name) => required.add(String(name)));
      } else if (!(key in merged)) {
        merged[key] = value;
      }
    }
  }
  if (Object.keys(properties).length > 0) {
    merged.properties = properties;
    merged.type ??= 'object';
  }
  if (required.size > 0) {
    merged.required = [...required];
  }
  return merged;
};

export const schemaTypes = (schema: Schema): string[] => {
  if (Array.isArray(schema.type)) {
    return schema.type.map(String);
  }
  if (typeof schema.type === 'string') {
    return schema.nullable === true ? [schema.type, 'null'] : [schema.type];
  }
  if (schema.properties) {
    return ['object'];
  }
  if (schema.items) {
    return ['array'];
  }
  return [];
};
