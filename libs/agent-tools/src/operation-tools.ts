import { credentialPlaces, flattenSchema, operationSecurity, resolveSchema } from '@libs/openapi-schemas';
import { type HttpMethod, type OperationModel, type ServiceModel, snakeCase } from '@libs/stack-model';

import { objectAt, parentPointer, valueAt } from './document-pointers';
import { ArgumentCandidate, flatArguments } from './tool-arguments';
import type { ToolAnnotations, ToolDefinition } from './tool-contract';
import { describe } from './tool-text';
import { selfContainedSchema } from './schema-inlining';

/** HTTP semantics as MCP hints: GET/HEAD only read, DELETE destroys, PUT and DELETE may be repeated to the same end. */
export const annotationsOf = (method: HttpMethod, title?: string): ToolAnnotations => ({
  ...(title ? { title } : {}),
  readOnlyHint: method === 'get' || method === 'head',
  destructiveHint: method === 'delete',
  idempotentHint: method === 'get' || method === 'head' || method === 'put' || method === 'delete',
  openWorldHint: false,
});

/** Headers the endpoint itself sets: the agent's token, and what the body and answer are. */
const ownHeaders = new Set(['authorization', 'content-type', 'accept', 'content-length', 'host', 'cookie']);

/**
 * Names vendors give a credential passed as a plain parameter (Slack's `token`): the endpoint sends the agent's own
 * token, so these are not the agent's to fill (and a required one would ask it for a secret it is never given).
 */
const credentialNames = new Set(['token', 'access_token', 'api_key', 'apikey', 'api-key', 'x-api-key', 'auth_token']);

/** A parameter is a credential by its name, unless its description says it is something else. */
const isCredential = (name: string, description: unknown): boolean =>
  credentialNames.has(name.toLowerCase()) && (typeof description !== 'string' || /auth|token|key/i.test(description));

/** JSON first (what agents write best), then forms, then whatever the operation takes. */
const bodyMediaType = (content: Record<string, string | null>): string | undefined => {
  const types = Object.keys(content);
  return (
    types.find((t) => /^application\/([\w.-]+\+)?json\b/i.test(t)) ??
    types.find((t) => /^application\/x-www-form-urlencoded\b/i.test(t)) ??
    types.find((t) => /^multipart\/form-data\b/i.test(t)) ??
    types[0]
  );
};

const isObjectSchema = (schema: Record<string, unknown>): boolean => {
  const type = schema.type;
  const typed = type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'));
  return (
    typed &&
    typeof schema.properties === 'object' &&
    schema.properties !== null &&
    !schema.oneOf &&
    !schema.anyOf &&
    Object.keys(schema.properties).length > 0
  );
};

const parameterCandidates = (service: ServiceModel, operation: OperationModel): ArgumentCandidate[] => {
  // The endpoint sends the agent's token where the spec's API keys go; a parameter declared there is not the agent's.
  const apiKeys = (place: string) =>
    new Set(
      service.securitySchemes
        .filter((s) => s.type === 'apiKey' && s.in === place && s.parameterName)
        .map((s) => (place === 'header' ? (s.parameterName as string).toLowerCase() : (s.parameterName as string))),
    );
  const [apiKeyHeaders, apiKeyQuery] = [apiKeys('header'), apiKeys('query')];
  return operation.parameters
    .filter((p) => p.in !== 'cookie')
    .filter(
      (p) => p.in !== 'header' || !(ownHeaders.has(p.name.toLowerCase()) || apiKeyHeaders.has(p.name.toLowerCase())),
    )
    .filter((p) => p.in !== 'query' || !apiKeyQuery.has(p.name))
    .map((parameter) => ({
      parameter,
      declared: parameter.schemaPointer ? objectAt(service.document, parentPointer(parameter.schemaPointer)) : {},
    }))
    .filter(({ parameter, declared }) => !isCredential(parameter.name, declared.description))
    .map(({ parameter, declared }) => {
      const schema = parameter.schemaPointer
        ? selfContainedSchema(service.document, valueAt(service.document, parameter.schemaPointer), service.dialect)
        : { type: 'string' };
      const description = describe(declared.description);
      return {
        in: parameter.in as 'path' | 'query' | 'header',
        name: parameter.name,
        schema: description && !schema.description ? { ...schema, description } : schema,
        required: parameter.in === 'path' || parameter.required,
      };
    });
};

const bodyCandidates = (
  service: ServiceModel,
  operation: OperationModel,
): { contentType?: string; candidates: ArgumentCandidate[] } => {
  const body = operation.requestBody;
  const contentType = body ? bodyMediaType(body.content) : undefined;
  if (!body || !contentType) {
    return { candidates: [] };
  }
  const pointer = body.content[contentType];
  const raw = pointer ? valueAt(service.document, pointer) : {};
  const merged = flattenSchema(service.document, raw);
  if (!isObjectSchema(merged)) {
    return {
      contentType,
      candidates: [
        {
          in: 'body',
          name: 'body',
          schema: selfContainedSchema(service.document, raw, service.dialect),
          required: body.required,
        },
      ],
    };
  }
  const required = new Set(body.required && Array.isArray(merged.required) ? merged.required.map(String) : []);
  const candidates = Object.entries(merged.properties as Record<string, unknown>)
    // A field the server sets (`readOnly`) is not the agent's to send; nor is a token the endpoint sends itself
    // (a body field is one only when its description says it authenticates: `token` is a common field name).
    .filter(([name, property]) => {
      const resolved = resolveSchema(service.document, property);
      const authenticates = typeof resolved.description === 'string' && /authenticat/i.test(resolved.description);
      return resolved.readOnly !== true && !(authenticates && isCredential(name, resolved.description));
    })
    .map(([name, property]) => ({
      in: 'body-field' as const,
      name,
      schema: selfContainedSchema(service.document, property, service.dialect),
      required: required.has(name),
    }));
  return { contentType, candidates };
};

/** Where an operation takes the agent's token: its first security alternative's places; [] when anyone may call. */
const credentialOf = (service: ServiceModel, operation: OperationModel) => {
  const alternatives = operationSecurity(service.document, operation.pointer);
  return alternatives.length === 0 || alternatives.some((a) => a.length === 0) ? [] : credentialPlaces(alternatives[0]);
};

/** One operation of a spec (a pack's included) as a tool; `name` is settled by the catalogue. */
export const operationTool = (service: ServiceModel, operation: OperationModel, name: string): ToolDefinition => {
  const declared = objectAt(service.document, operation.pointer);
  const body = bodyCandidates(service, operation);
  const { inputSchema, arguments: placements } = flatArguments([
    ...parameterCandidates(service, operation),
    ...body.candidates,
  ]);
  // An operation without a summary is still told by its id (`updateTicket` → "update ticket").
  const summary = describe(operation.summary ?? declared.summary) || snakeCase(operation.id).replace(/_/g, ' ');
  const description = describe(
    operation.deprecated ? 'Deprecated.' : undefined,
    summary,
    declared.description,
    `(${operation.method.toUpperCase()} ${operation.path.replace(/#.*$/, '')} on ${service.name})`,
  );
  return {
    name,
    description,
    inputSchema,
    annotations: annotationsOf(operation.method, summary),
    target: {
      kind: 'operation',
      service: service.name,
      operationId: operation.id,
      method: operation.method,
      // Box tells operations on one path apart with a fragment (`/folders/{id}#add_shared_link`): not sent.
      path: operation.path.replace(/#.*$/, ''),
      ...(body.contentType ? { contentType: body.contentType } : {}),
      // A pack takes its token as a bearer whatever its spec says (its own guard reads it); a spec twin where declared.
      ...(service.pack === undefined ? { credential: credentialOf(service, operation) } : {}),
      arguments: placements,
    },
  };
};
