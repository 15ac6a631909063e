import type { JsonSchema, ToolDefinition } from './tool-contract';

/** The wire formats tools are listed in: MCP's `tools/list`, OpenAI Chat Completions' and Responses' `tools`. */
export type ToolFormat = 'mcp' | 'openai_chat' | 'openai_responses';

export const toolFormats: readonly ToolFormat[] = ['mcp', 'openai_chat', 'openai_responses'];

/** Keywords OpenAI's strict mode (Structured Outputs) accepts; any other makes a schema non-strict. */
const strictKeywords = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'anyOf',
  'description',
  'title',
  '$defs',
  '$ref',
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'maxItems',
]);
const strictFormats = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const strictTypes = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const maxStrictDepth = 10;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const strictAllows = (schema: unknown, depth: number): boolean => {
  if (!isObject(schema) || depth > maxStrictDepth) {
    return false;
  }
  if (Object.keys(schema).some((key) => !strictKeywords.has(key))) {
    return false;
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.some((type) => typeof type !== 'string' || !strictTypes.has(type))) {
    return false;
  }
  if (schema.type === undefined && !schema.anyOf && !schema.enum && !schema.$ref) {
    return false;
  }
  if (schema.format !== undefined && (typeof schema.format !== 'string' || !strictFormats.has(schema.format))) {
    return false;
  }
  if (types.includes('object') || schema.properties !== undefined) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (
      schema.additionalProperties !== false ||
      Object.keys(properties).some((name) => !required.includes(name)) ||
      Object.values(properties).some((property) => !strictAllows(property, depth + 1))
    ) {
      return false;
    }
  } else if (schema.additionalProperties !== undefined || schema.required !== undefined) {
    return false;
  }
  if (schema.items !== undefined && !strictAllows(schema.items, depth + 1)) {
    return false;
  }
  if (
    schema.anyOf !== undefined &&
    !(Array.isArray(schema.anyOf) && schema.anyOf.every((s) => strictAllows(s, depth + 1)))
  ) {
    return false;
  }
  if (
    schema.$defs !== undefined &&
    !(isObject(schema.$defs) && Object.values(schema.$defs).every((s) => strictAllows(s, depth + 1)))
  ) {
    return false;
  }
  return true;
};

/**
 * Whether OpenAI may run this tool in strict mode without changing what it accepts: an object at the root, every
 * object closed (`additionalProperties: false`) with all its properties required, and only the keywords strict mode
 * knows. A schema with optional arguments is not bent to fit: it is offered with `strict: false`.
 */
export const openaiStrictAllows = (schema: JsonSchema): boolean =>
  schema.type === 'object' && !schema.anyOf && strictAllows(schema, 0);

/** The same tools in one wire format. */
export const toolsAs = (format: ToolFormat, tools: readonly ToolDefinition[]): unknown[] =>
  tools.map((tool) => {
    switch (format) {
      case 'mcp':
        return {
          name: tool.name,
          ...(tool.annotations.title ? { title: tool.annotations.title } : {}),
          description: tool.description,
          inputSchema: tool.inputSchema,
          annotations: tool.annotations,
        };
      case 'openai_chat':
        return {
          type: 'function',
          function: {
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema,
            strict: openaiStrictAllows(tool.inputSchema),
          },
        };
      case 'openai_responses':
        return {
          type: 'function',
          name: tool.name,
          description: tool.description,
          parameters: tool.inputSchema,
          strict: openaiStrictAllows(tool.inputSchema),
        };
      default:
        throw new Error(`unknown tool format "${String(format)}"; it is one of ${toolFormats.join(', ')}`);
    }
  });
