import { HttpMethod, OperationModel } from '@libs/stack-model';

import { inferResources } from './resource-inference';

const operation = (method: HttpMethod, path: string): OperationModel => ({
  id: `${method} ${path}`,
  derivedId: false,
  method,
  path,
  tags: [],
  parameters: [],
  responses: [],
  security: [],
  callbacks: [],
  deprecated: false,
  pointer: '',
});

const infer = (...operations: OperationModel[]) =>
  inferResources({
    operations,
    paginationOf: () => ({ style: 'none', parameters: {} }),
    recordSchemaOf: () => undefined,
  });

describe(inferResources.name, () => {
  it('pairs a collection with its item path and assigns CRUD roles', () => {
    const [suppliers] = infer(
      operation('get', '/suppliers'),
      operation('post', '/suppliers'),
      operation('get', '/suppliers/{id}'),
      operation('put', '/suppliers/{id}'),
      operation('patch', '/suppliers/{id}'),
      operation('delete', '/suppliers/{id}'),
    );
    expect(suppliers).toMatchObject({
      name: 'suppliers',
      collectionPath: '/suppliers',
      itemPath: '/suppliers/{id}',
      idParameter: 'id',
      operations: {
        list: 'get /suppliers',
        create: 'post /suppliers',
        get: 'get /suppliers/{id}',
        replace: 'put /suppliers/{id}',
        update: 'patch /suppliers/{id}',
        delete: 'delete /suppliers/{id}',
      },
    });
  });

  it('nests a collection under its parent even when the parameter is named differently', () => {
    const resources = infer(
      operation('get', '/v1/Workspaces/{Sid}'),
      operation('get', '/v1/Workspaces'),
      operation('get', '/v1/Workspaces/{WorkspaceSid}/Tasks'),
      operation('get', '/v1/Workspaces/{WorkspaceSid}/Tasks/{Sid}'),
    );
    expect(resources.map((r) => [r.name, r.parent ?? null])).toEqual([
      ['Workspaces', null],
      ['Workspaces.Tasks', 'Workspaces'],
    ]);
  });

  it('finds no resources in an RPC-style API', () => {
    expect(infer(operation('post', '/chat.postMessage'), operation('get', '/conversations.list'))).toEqual([]);
  });

  it('treats a path with both list and create as a collection even without an item path', () => {
    expect(infer(operation('get', '/v2/tags'), operation('post', '/v2/tags')).map((r) => r.name)).toEqual(['tags']);
  });

  it('ignores fragment variants of a path (Box-style keys)', () => {
    expect(infer(operation('get', '/files/{id}#shared'), operation('put', '/files/{id}#shared'))).toEqual([]);
  });

  it('keeps names unique when two collections end in the same word', () => {
    const names = infer(
      operation('get', '/v1/users'),
      operation('post', '/v1/users'),
      operation('get', '/v2/users'),
      operation('post', '/v2/users'),
    ).map((r) => r.name);
    expect(names).toEqual(['users', 'users_2']);
  });

  it('pairs item paths with a format suffix with their collection, nested ones under their parent', () => {
    const resources = infer(
      operation('get', '/Accounts/{Sid}.json'),
      operation('get', '/Accounts.json'),
      operation('get', '/Accounts/{AccountSid}/Messages.json'),
      operation('post', '/Accounts/{AccountSid}/Messages.json'),
      operation('get', '/Accounts/{AccountSid}/Messages/{Sid}.json'),
      operation('delete', '/Accounts/{AccountSid}/Messages/{Sid}.json'),
    );
    expect(resources).toMatchObject([
      { name: 'Accounts', collectionPath: '/Accounts.json', itemPath: '/Accounts/{Sid}.json', idParameter: 'Sid' },
      {
        name: 'Accounts.Messages',
        parent: 'Accounts',
        collectionPath: '/Accounts/{AccountSid}/Messages.json',
        itemPath: '/Accounts/{AccountSid}/Messages/{Sid}.json',
        idParameter: 'Sid',
        operations: {
          list: 'get /Accounts/{AccountSid}/Messages.json',
          create: 'post /Accounts/{AccountSid}/Messages.json',
          get: 'get /Accounts/{AccountSid}/Messages/{Sid}.json',
          delete: 'delete /Accounts/{AccountSid}/Messages/{Sid}.json',
        },
      },
    ]);
  });

  it('takes a POST to the item as its update, or as another update beside a PATCH', () => {
    const [workers] = infer(
      operation('get', '/workers'),
      operation('get', '/workers/{Sid}'),
      operation('post', '/workers/{Sid}'),
    );
    expect(workers.operations.update).toBe('post /workers/{Sid}');
    expect(workers.alternatives).toBeUndefined();
    const [tickets] = infer(
      operation('get', '/tickets'),
      operation('patch', '/tickets/{id}'),
      operation('post', '/tickets/{id}'),
    );
    expect(tickets.operations.update).toBe('patch /tickets/{id}');
    expect(tickets.alternatives).toEqual({ 'post /tickets/{id}': 'update' });
  });
});
