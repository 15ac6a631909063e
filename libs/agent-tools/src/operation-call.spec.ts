import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { argumentProblems } from './argument-problems';
import { callOperation } from './operation-call';
import type { ToolDefinition } from './tool-contract';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const annotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;

const updateTool: ToolDefinition = {
  name: 'desk_update_ticket',
  description: 'Update a ticket',
  inputSchema: {
    type: 'object',
    properties: {
      path_id: { type: 'string' },
      notify: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      body_id: { type: 'string' },
      amount: { type: 'number', minimum: 0 },
      status: { type: 'string', enum: ['open', 'closed'] },
    },
    required: ['path_id', 'amount'],
    additionalProperties: false,
  },
  annotations,
  target: {
    kind: 'operation',
    service: 'desk',
    operationId: 'updateTicket',
    method: 'patch',
    path: '/tickets/{id}',
    contentType: 'application/json',
    arguments: [
      { argument: 'path_id', in: 'path', name: 'id' },
      { argument: 'notify', in: 'query', name: 'notify' },
      { argument: 'tags', in: 'query', name: 'tag' },
      { argument: 'body_id', in: 'body-field', name: 'id' },
      { argument: 'amount', in: 'body-field', name: 'amount' },
      { argument: 'status', in: 'body-field', name: 'status' },
    ],
  },
};

const listTool: ToolDefinition = {
  name: 'ledger_list_accounts',
  description: 'List accounts',
  inputSchema: { type: 'object', properties: { filters: { type: 'object' }, limit: { type: 'integer' } } },
  annotations: { ...annotations, readOnlyHint: true },
  target: {
    kind: 'operation',
    service: 'ledger',
    operationId: 'list_accounts',
    method: 'get',
    path: '/accounts',
    arguments: [
      { argument: 'filters', in: 'query-map', name: 'filters' },
      { argument: 'limit', in: 'query', name: 'limit' },
    ],
  },
};

describe(callOperation.name, () => {
  let server: Server;
  let baseUrl: string;
  const seen: Seen[] = [];
  let answer: { status: number; body: string; type?: string } = { status: 200, body: '{}' };

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
        response.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' });
        response.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/e/1/desk/api/`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  beforeEach(() => {
    seen.length = 0;
  });

  const endpoint = () => ({ baseUrl, token: 'agent-token' });

  it('builds the request: path encoded once, query, JSON body of the body fields, the bearer token', async () => {
    answer = { status: 200, body: '{"id":"a/b c","status":"closed"}' };
    const result = await callOperation(
      updateTool,
      { path_id: 'a/b c', notify: true, tags: ['x', 'y'], body_id: 'T-1', amount: 5, status: 'closed' },
      endpoint(),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'PATCH', url: '/e/1/desk/api/tickets/a%2Fb%20c?notify=true&tag=x&tag=y' });
    expect(seen[0].headers.authorization).toBe('Bearer agent-token');
    expect(seen[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0].body)).toEqual({ id: 'T-1', amount: 5, status: 'closed' });
    expect(result).toEqual({
      isError: false,
      structured: { id: 'a/b c', status: 'closed' },
      text: '{"id":"a/b c","status":"closed"}',
    });
  });

  it("puts the token where the operation's spec takes it: query, API key header, cookie, basic, or nowhere", async () => {
    answer = { status: 200, body: '[]' };
    const placed = async (
      credential: NonNullable<Extract<ToolDefinition['target'], { kind: 'operation' }>['credential']>,
    ) => {
      seen.length = 0;
      const target = { ...listTool.target, credential } as ToolDefinition['target'];
      await callOperation({ ...listTool, target }, { limit: 2 }, endpoint());
      return seen[0];
    };
    const query = await placed([{ in: 'query', name: 'appid' }]);
    expect(query.url).toBe('/e/1/desk/api/accounts?limit=2&appid=agent-token');
    expect(query.headers.authorization).toBeUndefined();
    const header = await placed([{ in: 'header', name: 'X-Api-Key' }]);
    expect(header.headers['x-api-key']).toBe('agent-token');
    expect(header.headers.authorization).toBeUndefined();
    expect((await placed([{ in: 'cookie', name: 'sid' }])).headers.cookie).toBe('sid=agent-token');
    const basic = await placed([{ in: 'basic' }]);
    expect(basic.headers.authorization).toBe(`Basic ${Buffer.from('agent-token:').toString('base64')}`);
    const anonymous = await placed([]);
    expect(anonymous.headers.authorization).toBeUndefined();
    expect(anonymous.url).toBe('/e/1/desk/api/accounts?limit=2');
  });

  it('sends filters as one query parameter each and wraps an array answer as { result }', async () => {
    answer = { status: 200, body: '[{"id":1}]' };
    const result = await callOperation(
      listTool,
      { filters: { holder: 'eq.Ann', or: '(a.eq.1,b.eq.2)' }, limit: 2 },
      endpoint(),
    );
    expect(seen[0].url).toBe('/e/1/desk/api/accounts?holder=eq.Ann&or=%28a.eq.1%2Cb.eq.2%29&limit=2');
    expect(seen[0].body).toBe('');
    expect(result).toEqual({ isError: false, structured: { result: [{ id: 1 }] }, text: '[{"id":1}]' });
  });

  it('writes nested form fields in bracket notation, as the twin and payments-style APIs read them', async () => {
    answer = { status: 200, body: '{}' };
    const formTool: ToolDefinition = {
      ...updateTool,
      target: {
        ...(updateTool.target as Extract<ToolDefinition['target'], { kind: 'operation' }>),
        method: 'post',
        contentType: 'application/x-www-form-urlencoded',
        arguments: [
          { argument: 'path_id', in: 'path', name: 'id' },
          { argument: 'amount', in: 'body-field', name: 'amount' },
          { argument: 'tags', in: 'body-field', name: 'metadata' },
          { argument: 'body_id', in: 'body-field', name: 'items' },
        ],
      },
    };
    await callOperation(
      formTool,
      { path_id: 'T-1', amount: 5, tags: { k: 'v' }, body_id: [{ price: 'p1', quantity: 2 }] },
      endpoint(),
    );
    expect(seen[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(decodeURIComponent(seen[0].body)).toBe('amount=5&metadata[k]=v&items[0][price]=p1&items[0][quantity]=2');
  });

  it("reports a twin's 4xx as an error result with its status and body", async () => {
    answer = { status: 404, body: '{"message":"no such ticket"}' };
    const result = await callOperation(updateTool, { path_id: '9', amount: 1 }, endpoint());
    expect(result).toEqual({
      isError: true,
      structured: { status: 404, body: { message: 'no such ticket' } },
      text: 'HTTP 404: {"message":"no such ticket"}',
    });
  });

  it('reports an answer that is not JSON, and one without content', async () => {
    answer = { status: 500, body: 'boom', type: 'text/plain' };
    expect(await callOperation(updateTool, { path_id: '9', amount: 1 }, endpoint())).toEqual({
      isError: true,
      structured: { status: 500, body: 'boom' },
      text: 'HTTP 500: boom',
    });
    answer = { status: 204, body: '' };
    expect(await callOperation(updateTool, { path_id: '9', amount: 1 }, endpoint())).toEqual({
      isError: false,
      structured: { status: 204 },
      text: 'HTTP 204 (no content)',
    });
  });

  it('refuses path values that would climb out of the path, without sending anything', async () => {
    for (const value of ['..', '.']) {
      const result = await callOperation(updateTool, { path_id: value, amount: 1 }, endpoint());
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/may not be/);
    }
    expect(seen).toHaveLength(0);
  });

  it('reports a network failure as an error result, never a throw', async () => {
    const result = await callOperation(
      updateTool,
      { path_id: '9', amount: 1 },
      { baseUrl: 'http://127.0.0.1:1', token: 't' },
    );
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^the request to desk_update_ticket failed/);
  });
});

describe(argumentProblems.name, () => {
  it('is empty for arguments that fit', () => {
    expect(argumentProblems(updateTool, { path_id: '1', amount: 2, status: 'open' })).toEqual([]);
  });

  it('names each problem by its JSON pointer', () => {
    expect(argumentProblems(updateTool, { amount: 'ten', status: 'lost', tags: [1], extra: true })).toEqual([
      '/path_id: is required',
      '/extra: is not an argument of this tool (it takes path_id, notify, tags, body_id, amount, status)',
      '/tags/0: must be string',
      '/amount: must be number',
      '/status: must be one of ["open","closed"]',
    ]);
  });

  it('refuses arguments that are not an object', () => {
    expect(argumentProblems(updateTool, [] as never)).toEqual(['/: the arguments must be a JSON object']);
  });
});
