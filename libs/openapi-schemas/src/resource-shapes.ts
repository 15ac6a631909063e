import type { OperationModel, ResourceModel, ServiceModel } from '@libs/stack-model';
import { canonicalName as canonical } from '@libs/stack-model';

import { flattenSchema, referenceOf, resolveSchema, Schema, schemaTypes } from './schema-resolution';

/**
 * How one inferred resource looks on the wire: the schema of a record, the field that identifies it, the field that
 * links it to its parent, and the envelopes its responses and list pages use (`{ "droplet": {…} }`,
 * `{ "data": […], "next_cursor": … }`). World synthesis and the twin both read records through this.
 */
export interface ResourceShape {
  /** `service/resource`, the key of the resource's table in a world. */
  key: string;
  service: string;
  resource: ResourceModel;
  record: Schema;
  idField: string;
  idKind: 'integer' | 'uuid' | 'string';
  /** The id path parameter's schema, when it constrains ids (a format, a pattern): new ids are made to fit it. */
  idSchema?: Schema;
  /** The record field holding the parent's id, when the schema has one. */
  parentField?: string;
  /** Property of a single-record response that wraps the record. */
  itemEnvelope?: string;
  /**
   * The envelope holds an array of records (`{ "Contacts": [ … ] }`), in responses and create bodies alike: a bulk
   * wrapper, read as a list of records rather than as one record.
   */
  itemEnvelopeIsArray?: boolean;
  /** Property of a list response that holds the page of records (undefined: the body is the array). */
  listField?: string;
  /** Success response schema of the list operation, for the envelope's other fields. */
  listSchema?: Schema;
  /**
   * Where a create's body names the new record's id, when the client assigns it (a required `id`, a `name` that is
   * the item path's parameter, Kubernetes' `metadata.name`): a dotted path into the body.
   */
  clientIdField?: string;
}

const successSchema = (document: unknown, operation: OperationModel | undefined): Schema | undefined => {
  const response = operation?.responses.find((r) => /^2\d\d$/.test(r.status));
  const pointer = response
    ? Object.entries(response.content).find(([type, p]) => p && /json/i.test(type))?.[1]
    : undefined;
  if (!pointer) {
    return undefined;
  }
  return resolveSchema(document, { $ref: `#${pointer}` });
};

/**
 * A record's own branch of an `anyOf`/`oneOf` (`customer | deleted_customer`): the object branches that are not the
 * deleted variant (a `deleted` property fixed to true, a schema named for deletion), the one with the most
 * properties. A schema without alternatives is its own branch.
 */
export const recordBranch = (document: unknown, schema: unknown): Schema => {
  const flat = flattenSchema(document, schema);
  const alternatives = (flat.anyOf ?? flat.oneOf) as unknown[] | undefined;
  if (!Array.isArray(alternatives) || flat.properties !== undefined) {
    return flat;
  }
  const branches = alternatives
    .map((member) => ({ member, branch: flattenSchema(document, member) }))
    .filter(({ branch }) => schemaTypes(branch).includes('object') || branch.properties !== undefined);
  const isDeletedVariant = ({ member, branch }: { member: unknown; branch: Schema }): boolean => {
    const deleted = flattenSchema(document, (branch.properties as Record<string, unknown> | undefined)?.deleted);
    const names = [referenceOf(member)?.split('/').pop(), typeof branch.title === 'string' ? branch.title : undefined];
    return (
      deleted.const === true ||
      (Array.isArray(deleted.enum) && deleted.enum.length === 1 && deleted.enum[0] === true) ||
      names.some((name) => name !== undefined && /deleted/i.test(name))
    );
  };
  const live = branches.filter((candidate) => !isDeletedVariant(candidate));
  const size = (branch: Schema): number => Object.keys(branch.properties ?? {}).length;
  const chosen = (live.length > 0 ? live : branches).sort((a, b) => size(b.branch) - size(a.branch))[0];
  return chosen ? chosen.branch : flat;
};

const isObjectSchema = (document: unknown, schema: unknown): boolean => {
  const flat = recordBranch(document, schema);
  return schemaTypes(flat).includes('object') || flat.properties !== undefined;
};

const isArrayOfObjects = (document: unknown, schema: unknown): boolean => {
  const array = flattenSchema(document, schema);
  return schemaTypes(array).includes('array') && isObjectSchema(document, array.items ?? {});
};

/** `{ "Contacts": [Contact] }` answering one contact: the array named for the resource, alone beside metadata. */
const bulkWrapperOf = (document: unknown, schema: Schema, resourceName: string): string | undefined => {
  const flat = flattenSchema(document, schema);
  const properties = Object.entries((flat.properties ?? {}) as Record<string, unknown>);
  const arrays = properties.filter(([, value]) => isArrayOfObjects(document, value));
  const objects = properties.filter(
    ([, value]) => isObjectSchema(document, value) && !isArrayOfObjects(document, value),
  );
  const named = arrays.find(([key]) => canonical(key) === canonical(resourceName));
  return named && objects.length === 0 ? named[0] : undefined;
};

/** `{ droplet: Droplet, links: … }` → `droplet`; a schema that is the record itself → undefined. */
const envelopeOf = (document: unknown, schema: Schema, resourceName: string): string | undefined => {
  const flat = flattenSchema(document, schema);
  const properties = Object.entries((flat.properties ?? {}) as Record<string, unknown>);
  const objects = properties.filter(
    ([, value]) => isObjectSchema(document, value) && !Array.isArray(flattenSchema(document, value).items),
  );
  const named = objects.find(([key]) => canonical(key) === canonical(resourceName));
  if (named) {
    return named[0];
  }
  const others = properties.filter(([key]) => !/^(links|_links|meta|metadata|_meta)$/i.test(key));
  return others.length === 1 && objects.length === 1 && objects[0][0] === others[0][0] ? others[0][0] : undefined;
};

const arrayFieldOf = (document: unknown, schema: Schema, resourceName: string): string | undefined => {
  const flat = flattenSchema(document, schema);
  // A page holds records, so only arrays of objects qualify: `available_types: string[]` beside the page is not it.
  const arrays = Object.entries((flat.properties ?? {}) as Record<string, unknown>).filter(([, value]) => {
    const array = flattenSchema(document, value);
    return schemaTypes(array).includes('array') && isObjectSchema(document, array.items ?? {});
  });
  const leaf = canonical(resourceName);
  return (
    arrays.find(([key]) => canonical(key) === leaf)?.[0] ??
    arrays.find(([key]) => canonical(key).endsWith(leaf) || leaf.endsWith(canonical(key)))?.[0] ??
    arrays.find(([key]) => /^(data|items|results|entries|records|values|list|content|elements)$/i.test(key))?.[0] ??
    arrays[0]?.[0]
  );
};

/** The record inside a single-record response: past its envelope or bulk wrapper, on its live branch. */
const recordOfSingle = (document: unknown, single: Schema | undefined, leaf: string): Schema | undefined => {
  if (!single) {
    return undefined;
  }
  const bulk = bulkWrapperOf(document, single, leaf);
  const envelope = bulk ?? envelopeOf(document, single, leaf);
  const held = envelope ? (flattenSchema(document, single).properties as Record<string, unknown>)[envelope] : single;
  return recordBranch(document, bulk ? (flattenSchema(document, held).items ?? {}) : held);
};

const recordOfList = (document: unknown, list: Schema, leaf: string): Schema | undefined => {
  const flat = flattenSchema(document, list);
  const field = schemaTypes(flat).includes('array') ? undefined : arrayFieldOf(document, flat, leaf);
  const array = field ? flattenSchema(document, (flat.properties as Record<string, unknown>)[field]) : flat;
  return array.items ? recordBranch(document, array.items) : undefined;
};

/**
 * One resource, several schemas: the record takes the read schema's fields and adds those only the list items or the
 * create's answer show, so a create keeps them and a listing has them. A record that forbids other fields stays as is.
 */
const withFieldsOf = (
  document: unknown,
  record: Schema | undefined,
  others: (Schema | undefined)[],
): Schema | undefined => {
  if (!record || record.additionalProperties === false || !record.properties) {
    return record;
  }
  const properties = { ...(record.properties as Record<string, unknown>) };
  for (const other of others) {
    for (const [name, schema] of Object.entries((other?.properties ?? {}) as Record<string, unknown>)) {
      properties[name] ??= schema;
    }
  }
  return Object.keys(properties).length === Object.keys(record.properties).length ? record : { ...record, properties };
};

const idKindOf = (schema: unknown, document: unknown): ResourceShape['idKind'] => {
  const flat = flattenSchema(document, schema);
  if (schemaTypes(flat).includes('integer') || schemaTypes(flat).includes('number')) {
    return 'integer';
  }
  return flat.format === 'uuid' ? 'uuid' : 'string';
};

/** The path parameter's schema says what ids look like on the wire (`{firewall_id}` as a uuid) even when the record does not. */
const pathIdSchema = (
  document: unknown,
  operation: OperationModel | undefined,
  name: string | undefined,
): Schema | undefined => {
  const parameter = operation?.parameters.find((p) => p.in === 'path' && p.name === name);
  if (!parameter?.schemaPointer) {
    return undefined;
  }
  const schema = flattenSchema(document, { $ref: `#${parameter.schemaPointer}` });
  const constraining =
    schema.format !== undefined ||
    schema.pattern !== undefined ||
    schemaTypes(schema).some((t) => t === 'integer' || t === 'number');
  return constraining ? schema : undefined;
};

/** The JSON schema of an operation's request body, when it has one. */
const requestSchema = (document: unknown, operation: OperationModel | undefined): Schema | undefined => {
  const pointer = Object.entries(operation?.requestBody?.content ?? {}).find(
    ([type, p]) => p && /json/i.test(type),
  )?.[1];
  return pointer ? flattenSchema(document, { $ref: `#${pointer}` }) : undefined;
};

const same = (a: string, b: string): boolean =>
  a.toLowerCase().replace(/[_-]/g, '') === b.toLowerCase().replace(/[_-]/g, '');

/**
 * The body field a client names a new record by: a required top-level field that is the record's id or the item
 * path's parameter (`PUT /buckets/{name}` created by `{ "name": … }`), or `metadata.name` where the item path's
 * parameter is `name` (the Kubernetes convention, where the server never picks names).
 */
const clientIdFieldOf = (
  document: unknown,
  body: Schema | undefined,
  idField: string,
  idParameter: string | undefined,
): string | undefined => {
  if (!body) {
    return undefined;
  }
  const properties = (body.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(body.required) ? body.required.map(String) : []);
  const direct = Object.keys(properties).find(
    (name) =>
      required.has(name) &&
      (same(name, idField) || (idParameter !== undefined && same(name, idParameter))) &&
      schemaTypes(flattenSchema(document, properties[name])).some((t) => t === 'string' || t === 'integer'),
  );
  if (direct) {
    return direct;
  }
  const metadata = properties.metadata ? flattenSchema(document, properties.metadata) : undefined;
  const metadataProperties = (metadata?.properties ?? {}) as Record<string, unknown>;
  return idParameter === 'name' && 'name' in metadataProperties ? 'metadata.name' : undefined;
};

export const resourceShapes = (service: ServiceModel): ResourceShape[] => {
  const document = service.document;
  const operation = (id: string | undefined): OperationModel | undefined =>
    id ? service.operations.find((o) => o.id === id) : undefined;
  const byName = new Map(service.resources.map((r) => [r.name, r]));
  return service.resources.map((resource) => {
    const leaf = resource.name.split('.').pop() ?? resource.name;
    const single = successSchema(
      document,
      operation(resource.operations.get) ??
        operation(resource.operations.create) ??
        operation(resource.operations.replace),
    );
    const listSchema = successSchema(document, operation(resource.operations.list));
    const bulkWrapper = single ? bulkWrapperOf(document, single, leaf) : undefined;
    const itemEnvelope = bulkWrapper ?? (single ? envelopeOf(document, single, leaf) : undefined);
    let record: Schema | undefined;
    if (single) {
      const flat = flattenSchema(document, single);
      const held = itemEnvelope ? (flat.properties as Record<string, unknown>)[itemEnvelope] : single;
      record = recordBranch(document, bulkWrapper ? (flattenSchema(document, held).items ?? {}) : held);
    }
    let listField: string | undefined;
    if (listSchema) {
      const flatList = flattenSchema(document, listSchema);
      listField = schemaTypes(flatList).includes('array') ? undefined : arrayFieldOf(document, flatList, leaf);
      if (!record) {
        const arraySchema = listField
          ? flattenSchema(document, (flatList.properties as Record<string, unknown>)[listField])
          : flatList;
        record = recordBranch(document, arraySchema.items ?? {});
      }
    }
    record = withFieldsOf(document, record, [
      listSchema && recordOfList(document, listSchema, leaf),
      recordOfSingle(document, successSchema(document, operation(resource.operations.create)), leaf),
    ]);
    // A resource whose responses are not objects (a bare string, a file) still gets records: just an id.
    if (!record || !(schemaTypes(record).includes('object') || record.properties)) {
      record = { type: 'object', properties: { id: { type: 'string' } } };
    }
    const properties = Object.keys(record.properties ?? {});
    const findField = (...candidates: (string | undefined)[]): string | undefined =>
      candidates
        .filter((c): c is string => c !== undefined)
        .map((c) => properties.find((p) => p.toLowerCase().replace(/_/g, '') === c.toLowerCase().replace(/_/g, '')))
        .find((p) => p !== undefined);
    const idField =
      findField(
        resource.idParameter,
        resource.idParameter?.split('_').pop(),
        'id',
        'uuid',
        'sid',
        'key',
        `${canonical(leaf)}_id`,
        `${canonical(leaf)}Id`,
      ) ?? 'id';
    // Any item operation may be the one that constrains ids (DigitalOcean's add-on delete wants a uuid, its read not).
    const idSchema = [
      resource.operations.get,
      resource.operations.delete,
      resource.operations.replace,
      resource.operations.update,
    ]
      .map((id) => pathIdSchema(document, operation(id), resource.idParameter))
      .find((schema) => schema !== undefined);
    const parent = resource.parent ? byName.get(resource.parent) : undefined;
    const parentLeaf = parent ? (parent.name.split('.').pop() ?? parent.name) : undefined;
    const parentParameter = parent && resource.collectionPath.match(/\{([^}]+)\}(?!.*\{)/)?.[1];
    const parentField = parent
      ? findField(
          parentParameter,
          `${canonical(parentLeaf ?? '')}_id`,
          `${canonical(parentLeaf ?? '')}Id`,
          `${canonical(parentLeaf ?? '')}_sid`,
        )
      : undefined;
    const clientIdField = clientIdFieldOf(
      document,
      requestSchema(document, operation(resource.operations.create)),
      idField,
      resource.idParameter,
    );
    return {
      key: `${service.name}/${resource.name}`,
      service: service.name,
      resource,
      record,
      idField,
      idKind: idKindOf(
        idSchema ?? (record.properties as Record<string, unknown> | undefined)?.[idField] ?? { type: 'string' },
        document,
      ),
      ...(idSchema && schemaTypes(idSchema).includes('string') && idSchema.format !== 'uuid' ? { idSchema } : {}),
      ...(parentField && parentField !== idField ? { parentField } : {}),
      ...(itemEnvelope ? { itemEnvelope } : {}),
      ...(bulkWrapper ? { itemEnvelopeIsArray: true } : {}),
      ...(listField ? { listField } : {}),
      ...(listSchema ? { listSchema } : {}),
      ...(clientIdField ? { clientIdField } : {}),
    };
  });
};
