import { appendPointer } from '@libs/bundle-documents';
import {
  BodyModel,
  ErrorShapeModel,
  httpMethods,
  OperationModel,
  ParameterModel,
  ResponseModel,
  SecuritySchemeModel,
  WebhookModel,
} from '@libs/stack-model';

import { asRecord, dereference } from './internal-reference';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The pointer a schema finally lives at, so models name `/components/schemas/Pet` rather than a `$ref` holder. */
const schemaPointerOf = (document: unknown, schema: unknown, pointer: string): string | null =>
  schema === undefined ? null : dereference(document, schema, pointer).pointer;

const contentOf = (document: unknown, content: unknown, pointer: string): Record<string, string | null> => {
  const out: Record<string, string | null> = {};
  for (const [mediaType, media] of Object.entries(asRecord(content))) {
    out[mediaType] = schemaPointerOf(document, asRecord(media).schema, appendPointer(pointer, mediaType, 'schema'));
  }
  return out;
};

const derivedIdOf = (method: string, path: string): string => {
  const slug = path
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
  return slug ? `${method}_${slug}` : method;
};

const parametersOf = (document: unknown, raw: unknown, pointer: string): Map<string, ParameterModel> => {
  const out = new Map<string, ParameterModel>();
  (Array.isArray(raw) ? raw : []).forEach((entry, index) => {
    const { value, pointer: at } = dereference(document, entry, appendPointer(pointer, index));
    const parameter = asRecord(value);
    const location = parameter.in as ParameterModel['in'];
    const name = String(parameter.name);
    out.set(`${location}:${name}`, {
      name,
      in: location,
      required: parameter.required === true || location === 'path',
      ...(parameter.schema !== undefined
        ? { schemaPointer: schemaPointerOf(document, parameter.schema, `${at}/schema`) ?? undefined }
        : {}),
      ...(typeof parameter.style === 'string' ? { style: parameter.style } : {}),
      ...(typeof parameter.explode === 'boolean' ? { explode: parameter.explode } : {}),
      ...(typeof parameter['x-collectionFormat'] === 'string'
        ? { collectionFormat: parameter['x-collectionFormat'] }
        : {}),
      ...(typeof parameter.description === 'string' ? { description: parameter.description } : {}),
    });
  });
  return out;
};

const securityOf = (requirements: unknown): string[][] =>
  Array.isArray(requirements) ? requirements.map((requirement) => Object.keys(asRecord(requirement))) : [];

/** Every operation of an OpenAPI 3.x document, with parameters merged from path level and references followed. */
export const extractOperations = (document: Record<string, unknown>): OperationModel[] => {
  const operations: OperationModel[] = [];
  const usedIds = new Set<string>();
  const globalSecurity = securityOf(document.security);
  for (const [path, rawItem] of Object.entries(asRecord(document.paths))) {
    const itemPointer = appendPointer('/paths', path);
    const { value: item, pointer: resolvedItemPointer } = dereference(document, rawItem, itemPointer);
    const pathItem = asRecord(item);
    const shared = parametersOf(document, pathItem.parameters, appendPointer(resolvedItemPointer, 'parameters'));
    for (const method of httpMethods) {
      const operation = pathItem[method];
      if (!isObject(operation)) {
        continue;
      }
      const pointer = appendPointer(itemPointer, method);
      const own = parametersOf(document, operation.parameters, appendPointer(pointer, 'parameters'));
      const parameters = [...new Map([...shared, ...own]).values()];
      let id = typeof operation.operationId === 'string' ? operation.operationId : derivedIdOf(method, path);
      const derivedId = typeof operation.operationId !== 'string';
      if (derivedId) {
        const base = id;
        for (let n = 2; usedIds.has(id); n++) {
          id = `${base}_${n}`;
        }
      }
      usedIds.add(id);
      let requestBody: BodyModel | undefined;
      if (operation.requestBody !== undefined) {
        const { value, pointer: bodyPointer } = dereference(document, operation.requestBody, `${pointer}/requestBody`);
        const body = asRecord(value);
        requestBody = {
          required: body.required === true,
          content: contentOf(document, body.content, `${bodyPointer}/content`),
        };
      }
      const responses: ResponseModel[] = Object.entries(asRecord(operation.responses)).map(([status, raw]) => {
        const { value, pointer: responsePointer } = dereference(
          document,
          raw,
          appendPointer(pointer, 'responses', status),
        );
        const headers = Object.keys(asRecord(asRecord(value).headers));
        return {
          status,
          content: contentOf(document, asRecord(value).content, `${responsePointer}/content`),
          ...(headers.length > 0 ? { headers } : {}),
        };
      });
      operations.push({
        id,
        derivedId,
        method,
        path,
        ...(typeof operation.summary === 'string' ? { summary: operation.summary } : {}),
        tags: Array.isArray(operation.tags) ? operation.tags.map(String) : [],
        parameters,
        ...(requestBody ? { requestBody } : {}),
        responses,
        security: operation.security !== undefined ? securityOf(operation.security) : globalSecurity,
        callbacks: Object.keys(asRecord(operation.callbacks)),
        deprecated: operation.deprecated === true,
        pointer,
      });
    }
  }
  return operations;
};

export const extractWebhooks = (document: Record<string, unknown>): WebhookModel[] =>
  Object.entries(asRecord(document.webhooks)).flatMap(([name, raw]) => {
    const item = asRecord(dereference(document, raw, appendPointer('/webhooks', name)).value);
    return httpMethods
      .filter((method) => isObject(item[method]))
      .map((method) => ({ name, method, pointer: appendPointer('/webhooks', name, method) }));
  });

export const extractSecuritySchemes = (document: Record<string, unknown>): SecuritySchemeModel[] =>
  Object.entries(asRecord(asRecord(document.components).securitySchemes)).map(([name, raw]) => {
    const scheme = asRecord(dereference(document, raw, '').value);
    return {
      name,
      type: String(scheme.type),
      ...(typeof scheme.scheme === 'string' ? { scheme: scheme.scheme } : {}),
      ...(typeof scheme.in === 'string' ? { in: scheme.in } : {}),
      ...(typeof scheme.name === 'string' ? { parameterName: scheme.name } : {}),
    };
  });

/** The error bodies a service answers with, most used first, so twins can fail in the vendor's own shape. */
export const extractErrorShapes = (operations: OperationModel[]): ErrorShapeModel[] => {
  const shapes = new Map<string, ErrorShapeModel>();
  for (const operation of operations) {
    for (const response of operation.responses) {
      if (!/^[45]|^default$/i.test(response.status)) {
        continue;
      }
      for (const [contentType, schemaPointer] of Object.entries(response.content)) {
        const key = `${response.status} ${contentType} ${schemaPointer}`;
        const shape = shapes.get(key) ?? { status: response.status, contentType, schemaPointer, operations: 0 };
        shape.operations++;
        shapes.set(key, shape);
      }
    }
  }
  return [...shapes.values()].sort((a, b) => b.operations - a.operations).slice(0, 20);
};
