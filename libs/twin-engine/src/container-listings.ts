import { flattenSchema, ResourceShape, Schema, schemaTypes } from '@libs/openapi-schemas';
import { canonicalName, detectOperationPagination, OperationModel, PaginationModel } from '@libs/stack-ingestion';

/**
 * A listing of what a record contains that has no resource of its own: `GET /folders/{id}/items` answers the files,
 * folders and links whose `parent` is that folder. Nothing in its path says so; its schema does. The listing's items
 * are (branches of) records of other resources, and each of those records names its container in an object field that
 * describes the container's own records. Worked out once per operation from the spec; no vendor's names.
 */
export interface ContainerMember {
  shape: ResourceShape;
  /** The record field holding the container (`parent`: an object with the container's id). */
  field: string;
  /** The listing's schema for this kind of item (a branch of its `oneOf`), which answered records must fit. */
  itemSchema: Schema;
}

export interface ContainerListing {
  container: ResourceShape;
  /** The path parameter naming the container (its item path's id parameter). */
  parameter: string;
  members: ContainerMember[];
  /** The list response's array property; undefined when the body is the array. */
  listField?: string;
  listSchema: Schema;
  pagination: PaginationModel;
}

const propertiesOf = (schema: Schema): Record<string, unknown> => (schema.properties ?? {}) as Record<string, unknown>;

/** The values a property is fixed to (`enum`, `const`), or undefined when it is free. */
const fixedValues = (document: unknown, schema: unknown): unknown[] | undefined => {
  const flat = flattenSchema(document, schema);
  return 'const' in flat ? [flat.const] : Array.isArray(flat.enum) ? flat.enum : undefined;
};

/**
 * Whether `part` describes a view of records shaped by `whole`: every property of the part is one of the whole's, and
 * every property the part fixes (`type: folder`) the whole fixes to a value in common. `discriminated` says whether the
 * part fixed any, which is what tells a folder from a file when both have `id` and `name`.
 */
const describes = (document: unknown, part: Schema, whole: Schema): { fits: boolean; discriminated: boolean } => {
  const own = propertiesOf(part);
  const theirs = propertiesOf(whole);
  let discriminated = false;
  for (const [name, schema] of Object.entries(own)) {
    if (!(name in theirs)) {
      return { fits: false, discriminated };
    }
    const fixed = fixedValues(document, schema);
    if (fixed) {
      const other = fixedValues(document, theirs[name]);
      if (!other || !fixed.some((value) => other.some((o) => JSON.stringify(o) === JSON.stringify(value)))) {
        return { fits: false, discriminated };
      }
      discriminated = true;
    }
  }
  return { fits: Object.keys(own).length > 0, discriminated };
};

/**
 * The field of a record that names its container: an object holding the container's id that describes the
 * container's records, told apart by a fixed value (`type: folder`) or by its name (the container's own, or
 * `parent`). Exactly one, or none.
 */
const containerFieldOf = (document: unknown, member: ResourceShape, container: ResourceShape): string | undefined => {
  const leaf = canonicalName(container.resource.name.split('.').pop() ?? container.resource.name);
  const candidates = Object.entries(propertiesOf(member.record)).filter(([name, schema]) => {
    // A record holds another of its own kind as its parent; any other such field is a copy or a relation.
    if (member === container && canonicalName(name) !== 'parent') {
      return false;
    }
    const flat = flattenSchema(document, schema);
    if (!(schemaTypes(flat).includes('object') || flat.properties) || !(container.idField in propertiesOf(flat))) {
      return false;
    }
    const { fits, discriminated } = describes(document, flat, container.record);
    return fits && (discriminated || [leaf, 'parent'].includes(canonicalName(name)));
  });
  return candidates.length === 1 ? candidates[0][0] : undefined;
};

const successOf = (operation: OperationModel): { pointer: string; headers: string[] } | undefined => {
  const response = operation.responses.find((r) => /^2\d\d$/.test(r.status));
  const pointer = response
    ? Object.entries(response.content).find(([type, p]) => p && /json/i.test(type))?.[1]
    : undefined;
  return response && pointer ? { pointer, headers: response.headers ?? [] } : undefined;
};

/** The array a list response holds its page in: the body itself, or its one array property. */
const pageOf = (document: unknown, schema: Schema): { listField?: string; items: unknown } | undefined => {
  if (schemaTypes(schema).includes('array')) {
    return { items: schema.items ?? {} };
  }
  const arrays = Object.entries(propertiesOf(schema)).filter(([, value]) =>
    schemaTypes(flattenSchema(document, value)).includes('array'),
  );
  const named = arrays.filter(([key]) =>
    /^(data|items|results|entries|records|values|list|content|elements)$/i.test(key),
  );
  if (named.length === 1) {
    return { listField: named[0][0], items: flattenSchema(document, named[0][1]).items ?? {} };
  }
  return arrays.length === 1
    ? { listField: arrays[0][0], items: flattenSchema(document, arrays[0][1]).items ?? {} }
    : undefined;
};

/**
 * The container listing a read operation is, if it is one: a GET under a resource's item path (literal segments
 * after it) that CRUD does not answer, whose items are records of other resources that each name their container.
 */
export const containerListingOf = (
  document: unknown,
  operation: OperationModel,
  shapes: ResourceShape[],
): ContainerListing | undefined => {
  if (operation.method !== 'get') {
    return undefined;
  }
  const container = shapes
    .filter(({ resource }) => {
      const itemPath = resource.itemPath;
      return (
        itemPath !== undefined &&
        resource.idParameter !== undefined &&
        operation.path.startsWith(`${itemPath}/`) &&
        !operation.path.slice(itemPath.length).includes('{')
      );
    })
    .sort((a, b) => (b.resource.itemPath?.length ?? 0) - (a.resource.itemPath?.length ?? 0))[0];
  const success = successOf(operation);
  if (!container?.resource.idParameter || !success) {
    return undefined;
  }
  const listSchema = flattenSchema(document, { $ref: `#${success.pointer}` });
  const page = pageOf(document, listSchema);
  if (!page) {
    return undefined;
  }
  const items = flattenSchema(document, page.items);
  const alternatives = (items.oneOf ?? items.anyOf) as unknown[] | undefined;
  const members: ContainerMember[] = [];
  for (const branch of Array.isArray(alternatives) && !items.properties ? alternatives : [page.items]) {
    const itemSchema = flattenSchema(document, branch);
    const candidates = shapes.filter(
      (shape) => shape.idField in propertiesOf(itemSchema) && describes(document, itemSchema, shape.record).fits,
    );
    // A trash or a sub-listing may share a record's shape; the resource that stands on its own is the one meant.
    const standalone = candidates.filter((shape) => !shape.resource.parent);
    const chosen = standalone.length > 0 ? standalone : candidates;
    if (chosen.length !== 1 || members.some((member) => member.shape === chosen[0])) {
      continue;
    }
    const field = containerFieldOf(document, chosen[0], container);
    if (field) {
      members.push({ shape: chosen[0], field, itemSchema });
    }
  }
  if (members.length === 0) {
    return undefined;
  }
  return {
    container,
    parameter: container.resource.idParameter,
    members,
    ...(page.listField ? { listField: page.listField } : {}),
    listSchema,
    pagination: detectOperationPagination(document, operation, success.headers),
  };
};
