import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import type { JsonSchema, ToolDefinition } from './tool-contract';

const ajv = new Ajv2020({ allErrors: true, strict: false, unicodeRegExp: false, logger: false });
addFormats(ajv);

const validators = new WeakMap<JsonSchema, ValidateFunction>();

/** Vendors' patterns are written for other regex engines; one JavaScript cannot read must not disable the rest. */
const withoutPatterns = (schema: unknown): unknown =>
  Array.isArray(schema)
    ? schema.map(withoutPatterns)
    : schema !== null && typeof schema === 'object'
      ? Object.fromEntries(
          Object.entries(schema)
            .filter(([key, value]) => !(key === 'pattern' && typeof value === 'string'))
            .map(([key, value]) => [key, withoutPatterns(value)]),
        )
      : schema;

const validatorOf = (schema: JsonSchema): ValidateFunction => {
  let validate = validators.get(schema);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch {
      validate = ajv.compile(withoutPatterns(schema) as JsonSchema);
    }
    validators.set(schema, validate);
  }
  return validate;
};

const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const problemOf = (error: ErrorObject, schema: JsonSchema): string => {
  if (error.keyword === 'required') {
    return `${error.instancePath}/${escape(String(error.params.missingProperty))}: is required`;
  }
  if (error.keyword === 'additionalProperties') {
    const extra = String(error.params.additionalProperty);
    const known = error.instancePath === '' ? Object.keys((schema.properties as object | undefined) ?? {}) : [];
    return `${error.instancePath}/${escape(extra)}: is not an argument of this tool${known.length > 0 ? ` (it takes ${known.join(', ')})` : ''}`;
  }
  if (error.keyword === 'enum') {
    return `${error.instancePath || '/'}: must be one of ${JSON.stringify(error.params.allowedValues)}`;
  }
  return `${error.instancePath || '/'}: ${error.message ?? error.keyword}`;
};

/**
 * Why arguments do not fit the tool's schema, as JSON pointers into the arguments (`/amount: must be number`), one
 * per problem; [] when they fit. The call is then refused before it reaches the twin.
 */
export const argumentProblems = (tool: ToolDefinition, args: Record<string, unknown>): string[] => {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return ['/: the arguments must be a JSON object'];
  }
  const validate = validatorOf(tool.inputSchema);
  if (validate(args)) {
    return [];
  }
  const problems = (validate.errors ?? []).map((error) => problemOf(error, tool.inputSchema));
  return problems.filter((problem, index) => problems.indexOf(problem) === index);
};
