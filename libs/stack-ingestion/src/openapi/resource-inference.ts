import { HttpMethod, OperationModel, PaginationModel, ResourceModel, ResourceRole } from '@libs/stack-model';

export interface ResourceInferenceInput {
  operations: OperationModel[];
  /** Pagination of the list operation, by operation id. */
  paginationOf: (operation: OperationModel) => PaginationModel;
  /** Pointer to the schema of one record, taken from the operation's success response. */
  recordSchemaOf: (operation: OperationModel) => string | undefined;
}

const collectionRoles: Partial<Record<HttpMethod, ResourceRole>> = { get: 'list', post: 'create' };
const itemRoles: Partial<Record<HttpMethod, ResourceRole>> = {
  get: 'get',
  put: 'replace',
  patch: 'update',
  delete: 'delete',
};

const segmentsOf = (path: string): string[] => path.split('/').filter(Boolean);
/** `{Sid}.json` → `{ name: 'Sid', suffix: '.json' }`: an item segment with a format suffix, as some vendors spell paths. */
const suffixedParameter = (segment: string): { name: string; suffix: string } | undefined => {
  const match = /^\{([^{}]+)\}(\.[A-Za-z0-9]+)?$/.exec(segment);
  return match ? { name: match[1], suffix: match[2] ?? '' } : undefined;
};
/** The path's shape with parameter names and a trailing format suffix left out, so levels compare by shape. */
const template = (path: string): string => path.replace(/\{[^{}]+\}/g, '{}').replace(/\.[A-Za-z0-9]+$/, '');

/**
 * Finds REST resources in a spec's paths: a collection path (`/suppliers`) paired with an item path
 * (`/suppliers/{id}`), or a collection with both list and create. Nested collections under an item path
 * (`/suppliers/{id}/contacts`) become child resources. RPC-style APIs (`/chat.postMessage`) yield none, which is
 * right: their operations are answered from the schema, not with CRUD semantics.
 */
export const inferResources = ({
  operations,
  paginationOf,
  recordSchemaOf,
}: ResourceInferenceInput): ResourceModel[] => {
  // Box-style keys such as `/files/{id}#get_shared_link` are variants of a real path, not CRUD endpoints.
  const routable = operations.filter((operation) => !operation.path.includes('#'));
  const byPath = new Map<string, OperationModel[]>();
  for (const operation of routable) {
    const list = byPath.get(operation.path) ?? [];
    list.push(operation);
    byPath.set(operation.path, list);
  }
  const methodsAt = (path: string): Set<HttpMethod> => new Set((byPath.get(path) ?? []).map((o) => o.method));

  // `/Messages/{Sid}.json` is the item of `/Messages.json`: the suffix moves to the collection's last segment.
  const itemPathsByCollection = new Map<string, string>();
  for (const path of byPath.keys()) {
    const segments = segmentsOf(path);
    const last = suffixedParameter(segments[segments.length - 1] ?? '');
    if (last && segments.length > 1 && !suffixedParameter(segments[segments.length - 2])) {
      const collection = `/${segments.slice(0, -1).join('/')}${last.suffix}`;
      if (!itemPathsByCollection.has(collection)) {
        itemPathsByCollection.set(collection, path);
      }
    }
  }

  const collections = new Set<string>();
  for (const [collection, item] of itemPathsByCollection) {
    if (byPath.has(collection) || methodsAt(item).size > 0) {
      collections.add(collection);
    }
  }
  for (const path of byPath.keys()) {
    const methods = methodsAt(path);
    const last = segmentsOf(path).pop();
    if (last !== undefined && !suffixedParameter(last) && methods.has('get') && methods.has('post')) {
      collections.add(path);
    }
  }

  const sorted = [...collections].sort((a, b) => segmentsOf(a).length - segmentsOf(b).length || a.localeCompare(b));
  const resources: ResourceModel[] = [];
  const usedNames = new Set<string>();
  for (const collectionPath of sorted) {
    const itemPath = itemPathsByCollection.get(collectionPath);
    // Parameter names differ between levels (`/Workspaces/{Sid}` vs `/Workspaces/{WorkspaceSid}/Tasks`): compare shapes.
    const shape = template(collectionPath);
    // The parent's item path must be exactly what precedes the collection's last segment: with two parameters in a
    // row (`/taxonomies/{namespace}/{key}/levels`) the parent is a composite key no inferred resource has.
    const parentShape = shape.slice(0, shape.lastIndexOf('/'));
    const parent = resources.find((r) => r.itemPath !== undefined && template(r.itemPath) === parentShape);
    const base = (segmentsOf(collectionPath).pop() as string).replace(/\.[A-Za-z0-9]+$/, '');
    const qualified = parent ? `${parent.name}.${base}` : base;
    let name = qualified;
    for (let n = 2; usedNames.has(name); n++) {
      name = `${qualified}_${n}`;
    }
    usedNames.add(name);

    const roles: Partial<Record<ResourceRole, string>> = {};
    for (const operation of byPath.get(collectionPath) ?? []) {
      const role = collectionRoles[operation.method];
      if (role && !roles[role]) {
        roles[role] = operation.id;
      }
    }
    const alternatives: Record<string, ResourceRole> = {};
    for (const operation of itemPath ? (byPath.get(itemPath) ?? []) : []) {
      const role = itemRoles[operation.method];
      if (role && !roles[role]) {
        roles[role] = operation.id;
      }
    }
    // Many APIs update with a POST to the item (`POST /Workspaces/{Sid}`): the update, or another way to make one.
    const postToItem = itemPath ? byPath.get(itemPath)?.find((operation) => operation.method === 'post') : undefined;
    if (postToItem && !roles.update) {
      roles.update = postToItem.id;
    } else if (postToItem) {
      alternatives[postToItem.id] = 'update';
    }
    const find = (role: ResourceRole): OperationModel | undefined =>
      roles[role] ? routable.find((o) => o.id === roles[role]) : undefined;
    const list = find('list');
    const recordSource = find('get') ?? find('create') ?? find('replace');
    resources.push({
      name,
      collectionPath,
      ...(itemPath ? { itemPath, idParameter: suffixedParameter(segmentsOf(itemPath).pop() as string)?.name } : {}),
      ...(parent ? { parent: parent.name } : {}),
      operations: roles,
      ...(Object.keys(alternatives).length > 0 ? { alternatives } : {}),
      pagination: list ? paginationOf(list) : { style: 'none', parameters: {} },
      ...(recordSource && recordSchemaOf(recordSource) ? { schemaPointer: recordSchemaOf(recordSource) } : {}),
    });
  }
  return resources;
};
