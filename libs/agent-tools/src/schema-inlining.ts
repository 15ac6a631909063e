import { conversionFor, convertSchema, resolveSchema } from '@libs/openapi-schemas';
import type { SourceDialect } from '@libs/stack-model';

import type { JsonSchema } from './tool-contract';

/** Keys whose values are data, not schemas: a `$ref` inside an example is text to keep, not a reference. */
const dataKeys = new Set(['enum', 'const', 'default', 'examples', 'example', 'required']);
/** Keys whose values map names to schemas. */
const schemaMaps = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keys that mean nothing to a validator or a model and only cost tokens. */
const droppedKeys = new Set(['discriminator', 'xml', 'externalDocs', 'example']);

/** How many references deep a schema is inlined; deeper (and any cycle) becomes an open schema saying so. */
const maxReferenceDepth = 8;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const referenceName = (pointer: string): string => pointer.split('/').pop() ?? pointer;

/**
 * A schema of a service document made self-contained for a tool: every `#/…` reference inlined (a tool's schema
 * travels alone, to clients that resolve nothing), OpenAPI 3.0's dialect (`nullable`, boolean exclusive bounds)
 * turned into JSON Schema, vendor extensions dropped. A recursive type is inlined once and then left open, with a
 * description naming it, so the schema stays finite.
 */
export const selfContainedSchema = (
  document: Record<string, unknown>,
  schema: unknown,
  dialect: SourceDialect,
): JsonSchema => {
  const options = conversionFor(dialect);
  const inline = (value: unknown, trail: readonly string[]): unknown => {
    if (Array.isArray(value)) {
      return value.map((item) => inline(item, trail));
    }
    if (!isObject(value)) {
      return value;
    }
    if (typeof value.$ref === 'string' && value.$ref.startsWith('#')) {
      const pointer = value.$ref;
      const { $ref: _reference, ...siblings } = value;
      if (trail.includes(pointer)) {
        return { description: `a ${referenceName(pointer)}, as above` };
      }
      if (trail.length >= maxReferenceDepth) {
        return { description: `a ${referenceName(pointer)} (nested too deep to spell out here)` };
      }
      const target = inline(resolveSchema(document, { $ref: pointer }), [...trail, pointer]) as Record<string, unknown>;
      // OpenAPI 3.0 and Swagger ignore a reference's siblings; 3.1 applies them too, and the sibling wins here.
      return options.refSiblingsIgnored ? target : { ...target, ...(inline(siblings, trail) as object) };
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith('x-') || droppedKeys.has(key)) {
        continue;
      }
      if (dataKeys.has(key)) {
        out[key] = child;
      } else if (schemaMaps.has(key) && isObject(child)) {
        out[key] = Object.fromEntries(Object.entries(child).map(([name, s]) => [name, inline(s, trail)]));
      } else {
        out[key] = inline(child, trail);
      }
    }
    return out;
  };
  const converted = convertSchema(inline(schema, []), options);
  return isObject(converted) ? converted : {};
};
