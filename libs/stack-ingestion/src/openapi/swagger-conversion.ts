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
    const { openapi } = await convertObj(structuredClone(document), {
      patch: true,
      warnOnly: true,
      resolve: false,
      direct: false,
    });
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
