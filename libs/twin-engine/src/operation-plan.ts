import { flattenSchema, ResourceShape, Schema, schemaTypes } from '@libs/openapi-schemas';
import type { OperationModel, ResourceRole, ServiceModel } from '@libs/stack-ingestion';

import { ContainerListing, containerListingOf } from './container-listings';
import { Serialisation, serialisationOf } from './parameter-serialisation';

export interface ParameterPlan {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** The schema as written in the document (may be a `$ref`), for validation. */
  schema?: Schema;
  /** Types after resolving, for coercing text into values. */
  types: string[];
  itemTypes: string[];
  /** How the value is written on the wire: its style and explode, with OpenAPI's defaults filled in. */
  serialisation: Serialisation;
}

/** Everything the twin needs to answer one operation, worked out once when the service is compiled. */
export interface OperationPlan {
  index: number;
  operation: OperationModel;
  role?: ResourceRole;
  shape?: ResourceShape;
  parentShape?: ResourceShape;
  /** A read CRUD does not answer that lists what a record contains (see container-listings). */
  containerListing?: ContainerListing;
  successStatus: number;
  successMediaType?: string;
  successSchemaPointer?: string;
  /** Whether the success response declares a `Location` header (where a created record now lives). */
  successLocation: boolean;
  /** Media types the request body may have; empty when the operation takes no body. */
  bodyMediaTypes: string[];
  bodyRequired: boolean;
  parameters: ParameterPlan[];
}

const typesOf = (document: unknown, schema: unknown): { types: string[]; itemTypes: string[] } => {
  const flat = flattenSchema(document, schema);
  const types = schemaTypes(flat);
  return { types, itemTypes: types.includes('array') ? schemaTypes(flattenSchema(document, flat.items ?? {})) : [] };
};

/**
 * Paths alone can mislead: `GET /databases/{id}/online-migration` sits where a list would, but answers one object,
 * and `GET /files/{id}/content` answers bytes. Such operations keep their spec's shape instead of CRUD semantics.
 */
const fitsRole = (
  document: unknown,
  role: ResourceRole,
  shape: ResourceShape,
  media: [string, string | null] | undefined,
): boolean => {
  if (role === 'delete') {
    return true;
  }
  // A write that answers with no body (a bare 201 or 204) still changes state: the record comes from the request.
  if (!media && (role === 'create' || role === 'update' || role === 'replace')) {
    return true;
  }
  if (!media || !/json/i.test(media[0]) || !media[1]) {
    return false;
  }
  const types = schemaTypes(flattenSchema(document, { $ref: `#${media[1]}` }));
  if (role === 'list') {
    return types.includes('array') || shape.listField !== undefined;
  }
  return types.includes('object') || types.length === 0;
};

const preferredSuccess = (operation: OperationModel): OperationModel['responses'][number] | undefined => {
  const successes = operation.responses
    .filter((r) => /^2\d\d$/.test(r.status))
    .sort((a, b) => a.status.localeCompare(b.status));
  return successes[0] ?? operation.responses.find((r) => r.status === 'default' || r.status === '2XX');
};

export const planOperations = (service: ServiceModel, shapes: ResourceShape[]): OperationPlan[] => {
  const roleOf = new Map<string, { role: ResourceRole; shape: ResourceShape }>();
  for (const shape of shapes) {
    for (const [role, operationId] of Object.entries(shape.resource.operations) as [ResourceRole, string][]) {
      roleOf.set(operationId, { role, shape });
    }
    for (const [operationId, role] of Object.entries(shape.resource.alternatives ?? {})) {
      if (!roleOf.has(operationId)) {
        roleOf.set(operationId, { role, shape });
      }
    }
  }
  const shapeByName = new Map(shapes.map((s) => [s.resource.name, s]));
  return service.operations.map((operation, index) => {
    const success = preferredSuccess(operation);
    const media = success
      ? (Object.entries(success.content).find(([type]) => /json/i.test(type)) ?? Object.entries(success.content)[0])
      : undefined;
    const candidate = roleOf.get(operation.id);
    const crud =
      candidate && fitsRole(service.document, candidate.role, candidate.shape, media) ? candidate : undefined;
    const parameters = operation.parameters.map((parameter): ParameterPlan => {
      // A `$ref` to the schema's place, so that validators resolve it against the document.
      const schema: Schema | undefined = parameter.schemaPointer ? { $ref: `#${parameter.schemaPointer}` } : undefined;
      return {
        name: parameter.name,
        in: parameter.in,
        required: parameter.required,
        ...(schema ? { schema } : {}),
        ...typesOf(service.document, schema ?? {}),
        serialisation: serialisationOf(parameter.in, parameter),
      };
    });
    const containerListing = crud ? undefined : containerListingOf(service.document, operation, shapes);
    return {
      index,
      operation,
      ...(crud ? { role: crud.role, shape: crud.shape } : {}),
      ...(containerListing ? { containerListing } : {}),
      ...(crud?.shape.resource.parent ? { parentShape: shapeByName.get(crud.shape.resource.parent) } : {}),
      successStatus: success && /^\d{3}$/.test(success.status) ? Number(success.status) : 200,
      ...(media ? { successMediaType: media[0], ...(media[1] ? { successSchemaPointer: media[1] } : {}) } : {}),
      successLocation: (success?.headers ?? []).some((name) => name.toLowerCase() === 'location'),
      bodyMediaTypes: Object.keys(operation.requestBody?.content ?? {}),
      bodyRequired: operation.requestBody?.required ?? false,
      parameters,
    };
  });
};
