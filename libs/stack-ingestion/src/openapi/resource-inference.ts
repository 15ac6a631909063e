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
const isParameter = (segment: string): boolean => /^\{[^{}]+\}$/.test(segment);
const template = (path: string): string => path.replace(/\{[^{}]+\}/g, '{}');

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

  const itemPathsByCollection = new Map<string, string>();
  for (const path of byPath.keys()) {
    const segments = segmentsOf(path);
    const last = segments[segments.length - 1];
    if (last !== undefined && isParameter(last) && segments.length > 1 && !isParameter(segments[segments.length - 2])) {
      const collection = `/${segments.slice(0, -1).join('/')}`;
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
    if (last !== undefined && !isParameter(last) && methods.has('get') && methods.has('post')) {
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
    const base = segmentsOf(collectionPath).pop() as string;
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
    for (const operation of itemPath ? (byPath.get(itemPath) ?? []) : []) {
      const role = itemRoles[operation.method];
      if (role && !roles[role]) {
        roles[role] = operation.id;
      }
    }
    const find = (role: ResourceRole): OperationModel | undefined =>
      roles[role] ? routable.find((o) => o.id === roles[role]) : undefined;
    const list = find('list');
    const recordSource = find('get') ?? find('create') ?? find('replace');
    resources.push({
      name,
      collectionPath,
      ...(itemPath ? { itemPath, idParameter: (segmentsOf(itemPath).pop() as string).slice(1, -1) } : {}),
      ...(parent ? { parent: parent.name } : {}),
      operations: roles,
      pagination: list ? paginationOf(list) : { style: 'none', parameters: {} },
      ...(recordSource && recordSchemaOf(recordSource) ? { schemaPointer: recordSchemaOf(recordSource) } : {}),
    });
  }
  return resources;
};
