import { convertObj } from 'swagger2openapi';

import { IngestionError } from '@libs/bundle-documents';

/**
 * Swagger 2.0 becomes OpenAPI 3.0 with swagger2openapi, the converter most vendor toolchains use. It runs on the
 * already-bundled document, so it never resolves references or touches the network itself; `patch` lets it repair
 * the small defects real specs carry instead of refusing them (problems we can locate are warned about beforehand).
 */
export const convertSwagger = async (
  file: string,
  document: Record<string, unknown>,
): Promise<Record<string, unknown>> => {
  try {
    // swagger2openapi mutates its input; the bundled document still serves to locate problems afterwards.
    const { openapi } = await convertObj(draft4Rewritten(structuredClone(document)), {
      patch: true,
      warnOnly: true,
      resolve: false,
      direct: false,
    });
    nullTypesRestored(openapi);
    requireFormsWithRequiredFields(document, openapi);
    return openapi;
  } catch (error) {
    throw IngestionError.single('SPECIFICATION_INVALID', {
      file,
      pointer: '',
      message: `Swagger 2.0 document cannot be converted: ${(error as Error).message}`,
    });
  }
};

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Draft 4's `items: [A, B]` checks an array position by position and says nothing about any other value; specs
 * generated from other formats (Slack's) write the alternatives of one value that way (`[{type: null}, {enum: […]}]`,
 * `[objs_message, {type: null}]`), and their examples and the real API send one of the positions, never an array.
 * swagger2openapi turns the list into `items: {anyOf: […]}`, an array of any of them, so the twin sent arrays the spec
 * read as draft 4 refuses. Where the schema does not declare an array the list becomes `anyOf` of its positions (the
 * value is one of them, which draft 4 accepts too); a declared array keeps its tuple as swagger2openapi converts it.
 */
const tupleAsAlternatives = (schema: Schema): void => {
  if (Array.isArray(schema.items) && schema.type !== 'array') {
    const positions = schema.items as unknown[];
    delete schema.items;
    if (Array.isArray(schema.anyOf)) {
      schema.allOf = [...(Array.isArray(schema.allOf) ? (schema.allOf as unknown[]) : []), { anyOf: positions }];
    } else {
      schema.anyOf = positions;
    }
  }
};

/**
 * Draft 4's `type: "null"` allows null and nothing else; swagger2openapi turns it into a bare `nullable: true`, which
 * names no type and so allows any value (the twin answered text where the spec allows only null), and it drops null
 * from an enum. Such a schema is marked before the conversion and written `enum: [null]` after it, which says the
 * same in OpenAPI 3.0.
 */
const nullOnly = 'x-mirror-null-only';

const markNullType = (schema: Schema): void => {
  if (schema.type === 'null') {
    schema[nullOnly] = true;
  }
};

const nullTypesRestored = (converted: unknown): void => {
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) {
      return;
    }
    seen.add(value);
    if (isSchema(value) && value[nullOnly] === true) {
      for (const key of Object.keys(value)) {
        delete value[key];
      }
      value.enum = [null];
      return;
    }
    Object.values(value).forEach(visit);
  };
  visit(converted);
};

/**
 * The rewrites of draft 4 the converter would misread, on every schema position: definitions, parameter and
 * response schemas, and the keywords nesting them; never examples, which may hold a list or a `type` under the same
 * key.
 */
const draft4Rewritten = (document: Schema): Schema => {
  const seen = new Set<Schema>();
  const visit = (schema: unknown): void => {
    if (!isSchema(schema) || seen.has(schema)) {
      return;
    }
    seen.add(schema);
    tupleAsAlternatives(schema);
    markNullType(schema);
    for (const keyword of ['items', 'additionalProperties', 'not']) {
      visit(schema[keyword]);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf', 'items']) {
      const list = schema[keyword];
      if (Array.isArray(list)) {
        list.forEach(visit);
      }
    }
    for (const keyword of ['properties', 'patternProperties']) {
      const map = schema[keyword];
      if (isSchema(map)) {
        Object.values(map).forEach(visit);
      }
    }
  };
  Object.values(isSchema(document.definitions) ? document.definitions : {}).forEach(visit);
  const visitParameters = (parameters: unknown): void => {
    if (Array.isArray(parameters)) {
      parameters.forEach((parameter) => isSchema(parameter) && visit(parameter.schema));
    }
  };
  visitParameters(Object.values(isSchema(document.parameters) ? document.parameters : {}));
  Object.values(isSchema(document.responses) ? document.responses : {}).forEach(
    (response) => isSchema(response) && visit(response.schema),
  );
  for (const item of Object.values(isSchema(document.paths) ? document.paths : {})) {
    if (!isSchema(item)) {
      continue;
    }
    visitParameters(item.parameters);
    for (const method of methods) {
      const operation = item[method];
      if (!isSchema(operation)) {
        continue;
      }
      visitParameters(operation.parameters);
      Object.values(isSchema(operation.responses) ? operation.responses : {}).forEach(
        (response) => isSchema(response) && visit(response.schema),
      );
    }
  }
  return document;
};

type Parameter = { in?: string; required?: boolean; $ref?: string };

/**
 * In Swagger 2.0 a required `formData` parameter must be sent, so a request without a form is refused; swagger2openapi
 * keeps the field required in the form's schema but leaves the request body optional, and OpenAPI 3 then lets the
 * whole form be left out. The body is required wherever a form field is (path-level parameters count, `$ref`ed ones
 * through the document's `parameters`).
 */
const requireFormsWithRequiredFields = (swagger: Record<string, unknown>, openapi: Record<string, unknown>): void => {
  const shared = (swagger.parameters ?? {}) as Record<string, Parameter>;
  const resolve = (parameter: Parameter): Parameter =>
    parameter.$ref?.startsWith('#/parameters/')
      ? (shared[parameter.$ref.slice('#/parameters/'.length)] ?? {})
      : parameter;
  const requiresForm = (parameters: unknown): boolean =>
    Array.isArray(parameters) &&
    parameters.some((raw) => {
      const parameter = resolve((raw ?? {}) as Parameter);
      return parameter.in === 'formData' && parameter.required === true;
    });
  const sourcePaths = (swagger.paths ?? {}) as Record<string, Record<string, { parameters?: unknown } | undefined>>;
  const targetPaths = (openapi.paths ?? {}) as Record<string, Record<string, { requestBody?: { required?: boolean } }>>;
  for (const [path, item] of Object.entries(sourcePaths)) {
    for (const method of methods) {
      const operation = item?.[method];
      const body = targetPaths[path]?.[method]?.requestBody;
      if (operation && body && (requiresForm(operation.parameters) || requiresForm(item.parameters))) {
        body.required = true;
      }
    }
  }
};
