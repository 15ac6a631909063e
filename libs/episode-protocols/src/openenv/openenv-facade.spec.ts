import { WebSocket } from 'ws';

import { InMemoryEpisodes } from '@test/support/episode-protocols/in-memory-episodes';
import { serveProtocols } from '@test/support/episode-protocols/protocol-server';

describe('OpenEnv façade (/openenv/{env}/…)', () => {
  let episodes: InMemoryEpisodes;
  let served: Awaited<ReturnType<typeof serveProtocols>>;
  const sockets: WebSocket[] = [];

  const url = (path: string): string => `${served.baseUrl}/openenv/shop${path}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(url(path), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

  /** A WebSocket session speaking OpenEnv's messages, one reply per message, in order. */
  const session = async (environment = 'shop'): Promise<(message: unknown) => Promise<Record<string, unknown>>> => {
    const ws = new WebSocket(`${served.baseUrl.replace('http', 'ws')}/openenv/${environment}/ws`);
    sockets.push(ws);
    const replies: Record<string, unknown>[] = [];
    const waiting: ((reply: Record<string, unknown>) => void)[] = [];
    ws.on('message', (raw: Buffer) => {
      const reply = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      const waiter = waiting.shift();
      if (waiter) {
        waiter(reply);
      } else {
        replies.push(reply);
      }
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return (message) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        ws.send(JSON.stringify(message));
      });
  };

  beforeEach(async () => {
    episodes = new InMemoryEpisodes();
    served = await serveProtocols(episodes);
  });

  afterEach(async () => {
    sockets.splice(0).forEach((ws) => ws.close());
    await served.close();
    if (served.errors.length > 0) {
      throw new Error(`unexpected adapter errors: ${String(served.errors)}`);
    }
  });

  it('answers health, metadata and schema for a known environment and 404 for another', async () => {
    const [health, metadata, schema, unknown] = await Promise.all([
      fetch(url('/health')),
      fetch(url('/metadata')),
      fetch(url('/schema')),
      fetch(`${served.baseUrl}/openenv/nowhere/health`),
    ]);

    expect(await health.json()).toEqual({ status: 'healthy' });
    expect(await metadata.json()).toMatchObject({ name: 'shop', version: 'v1' });
    expect(Object.keys((await schema.json()) as object).sort()).toEqual([
      'action',
      'observation',
      'reset_observation',
      'state',
    ]);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'environment_not_found' } });
  });

  it('walks the train split on bare resets and starts the task a reset names', async () => {
    const tasks = [];
    for (const body of [{}, {}, {}, { seed: 2 }, { scenario: 'lookup', seed: 3 }, { task: 'lookup@100' }]) {
      const reset = (await (await post('/reset', body)).json()) as { metadata: { task: string } };
      tasks.push(reset.metadata.task);
    }

    expect(tasks).toEqual(['refund@1', 'refund@2', 'refund@3', 'refund@2', 'lookup@3', 'lookup@100']);
  });

  it('refuses resets it cannot read with 422 and starts nothing', async () => {
    const answers = await Promise.all([
      post('/reset', { seed: -1 }),
      post('/reset', { seed: 'one' }),
      post('/reset', { task: 7 }),
      post('/reset', { scenario: 'refund' }),
      post('/reset', '[1, 2]'),
      post('/reset', '{"seed": '),
    ]);

    expect(answers.map((answer) => answer.status)).toEqual([422, 422, 422, 422, 422, 400]);
    expect(episodes.started).toBe(0);
    // Nor did a refusal move the train split on.
    await expect((await post('/reset', {})).json()).resolves.toMatchObject({ metadata: { task: 'refund@1' } });
  });

  it('resets and steps over HTTP, naming the episode by id and opening it with its token', async () => {
    const reset = (await (await post('/reset', {})).json()) as {
      observation: { tools: { name: string }[]; prompt: { user: string } };
      metadata: { episode_id: string; token: string; mcp: { url: string } };
    };
    const { episode_id: episodeId, token } = reset.metadata;

    const refund = await post(
      '/step',
      {
        episode_id: episodeId,
        action: { type: 'call_tool', tool_name: 'orders_refund_order', arguments: { order_id: 'ord-1', amount: 40 } },
      },
      bearer(token),
    );
    const finish = await post(
      '/step',
      { episode_id: episodeId, action: { type: 'call_tool', tool_name: 'finish_episode' } },
      bearer(token),
    );
    const state = await fetch(url(`/state?episode_id=${episodeId}`), { headers: bearer(token) });

    expect(reset.observation.tools.map((tool) => tool.name)).toContain('orders_refund_order');
    expect(reset.observation.prompt.user).toBe('Refund order ord-1.');
    expect(reset.metadata.mcp.url).toBe(`${served.baseUrl}/v1/episodes/${episodeId}/mcp`);
    expect(await refund.json()).toMatchObject({
      observation: {
        tool_name: 'orders_refund_order',
        result: { is_error: false, structured_content: { refunded: 40 } },
        error: null,
      },
      reward: null,
      done: false,
    });
    expect(await finish.json()).toMatchObject({ done: true, reward: 1 });
    expect(await state.json()).toMatchObject({ episode_id: episodeId, step_count: 2, status: 'ended', reward: 1 });
  });

  it("refuses HTTP steps without a token (401), with another episode's (403), or without an episode id (422)", async () => {
    const first = (await (await post('/reset', {})).json()) as { metadata: { episode_id: string; token: string } };
    const second = (await (await post('/reset', {})).json()) as { metadata: { token: string } };
    const action = { type: 'call_tool', tool_name: 'finish_episode' };

    const answers = await Promise.all([
      post('/step', { episode_id: first.metadata.episode_id, action }),
      post('/step', { episode_id: first.metadata.episode_id, action }, bearer(second.metadata.token)),
      post('/step', { action }, bearer(first.metadata.token)),
      post('/step', { episode_id: first.metadata.episode_id, action: { type: 'dance' } }, bearer(first.metadata.token)),
    ]);

    expect(answers.map((answer) => answer.status)).toEqual([401, 403, 422, 422]);
    expect(episodes.calls).toEqual([]);
  });

  it('runs a whole episode over the WebSocket session as OpenEnv clients do', async () => {
    const send = await session();

    const early = await send({ type: 'step', data: { type: 'list_tools' } });
    const reset = await send({ type: 'reset', data: { seed: 1 } });
    const tools = await send({ type: 'step', data: { type: 'list_tools' } });
    const unknown = await send({ type: 'step', data: { type: 'call_tool', tool_name: 'nope', arguments: {} } });
    const refund = await send({
      type: 'step',
      data: { type: 'call_tool', tool_name: 'orders_refund_order', arguments: { order_id: 'ord-1', amount: 40 } },
    });
    const finish = await send({
      type: 'step',
      data: { type: 'call_tool', tool_name: 'finish_episode', arguments: {} },
    });
    const state = await send({ type: 'state' });
    const late = await send({ type: 'step', data: { type: 'call_tool', tool_name: 'finish_episode' } });

    expect(early).toMatchObject({ type: 'error', data: { code: 'NO_EPISODE' } });
    expect(reset).toMatchObject({ type: 'observation', data: { done: false, metadata: { task: 'refund@1' } } });
    expect(tools).toMatchObject({ type: 'observation', data: { observation: { tools: expect.any(Array) } } });
    expect(unknown).toMatchObject({ data: { observation: { error: { error_type: 'tool_not_found' } }, done: false } });
    expect(refund).toMatchObject({ data: { observation: { result: { is_error: false } }, done: false } });
    expect(finish).toMatchObject({ type: 'observation', data: { done: true, reward: 1 } });
    expect(state).toMatchObject({ type: 'state', data: { status: 'ended', step_count: 2, reward: 1 } });
    expect(late).toMatchObject({ type: 'error', data: { code: 'episode_ended', status: 409 } });
    expect(episodes.calls.map((call) => call.names)).toEqual([['orders_refund_order'], ['finish_episode']]);
  });

  it('finishes the episode a session held when the session resets again or closes', async () => {
    const send = await session();
    const first = (await send({ type: 'reset', data: {} })) as {
      data: { metadata: { episode_id: string; token: string } };
    };
    const second = (await send({ type: 'reset', data: {} })) as {
      data: { metadata: { episode_id: string; token: string } };
    };

    const firstStatus = await episodes.status(first.data.metadata.episode_id, first.data.metadata.token);
    sockets[0]?.close();
    await new Promise((resolve) => sockets[0]?.once('close', resolve));
    let secondStatus = await episodes.status(second.data.metadata.episode_id, second.data.metadata.token);
    for (let attempt = 0; secondStatus.status === 'running' && attempt < 100; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      secondStatus = await episodes.status(second.data.metadata.episode_id, second.data.metadata.token);
    }

    expect(firstStatus).toMatchObject({ status: 'ended', result: { reward: 0 } });
    expect(secondStatus).toMatchObject({ status: 'ended' });
  });

  it('answers bad messages with OpenEnv error codes and keeps the session open', async () => {
    const send = await session();

    const answers = [
      await send({ type: 'dance' }),
      await send({ type: 'reset', data: [1] }),
      await send({ type: 'reset', data: { seed: 'x' } }),
      await send({ type: 'state' }),
    ];

    expect(answers).toMatchObject([
      { type: 'error', data: { code: 'UNKNOWN_TYPE' } },
      { type: 'error', data: { code: 'VALIDATION_ERROR' } },
      { type: 'error', data: { code: 'invalid_reset', status: 422 } },
      { type: 'state', data: { episode_id: null, step_count: 0 } },
    ]);
  });

  it("carries OpenEnv's MCP JSON-RPC on its /mcp route, its sessions standing for an episode", async () => {
    const rpc = (id: number, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
      post('/mcp', { jsonrpc: '2.0', id, method, params }, headers);
    const created = (await (await rpc(1, 'openenv/session/create', {})).json()) as {
      result: { session_id: string; episode_id: string; token: string };
    };
    const { session_id: sessionId, episode_id: episodeId, token } = created.result;

    const listed = await rpc(2, 'tools/list', { session_id: sessionId });
    const called = await rpc(3, 'tools/call', {
      session_id: sessionId,
      name: 'orders_get_order',
      arguments: { order_id: 'ord-1' },
    });
    const unknown = await rpc(4, 'tools/call', { session_id: sessionId, name: 'nope' });
    const byToken = await rpc(5, 'tools/list', { session_id: episodeId }, bearer(token));
    const refused = await Promise.all([
      rpc(6, 'tools/list', { session_id: episodeId }),
      rpc(7, 'tools/list', { session_id: 'guessed' }),
      rpc(8, 'tools/list', {}),
    ]);
    const closed = await rpc(9, 'openenv/session/close', { session_id: sessionId });
    const afterClose = await rpc(10, 'tools/list', { session_id: sessionId });

    expect(sessionId).not.toBe(episodeId);
    expect(sessionId).not.toBe(token);
    expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(4);
    expect(await called.json()).toMatchObject({ id: 3, result: { isError: false, data: { id: 'ord-1' } } });
    expect(await unknown.json()).toMatchObject({ id: 4, error: { code: -32602 } });
    expect(byToken.status).toBe(200);
    expect(refused.map((answer) => answer.status)).toEqual([401, 401, 401]);
    expect(await closed.json()).toMatchObject({ id: 9, result: { episode_id: episodeId, status: 'ended' } });
    expect(afterClose.status).toBe(401);
    expect(episodes.calls.map((call) => call.names)).toEqual([['orders_get_order']]);
  });

  it("lets a WebSocket attach to an HTTP MCP session (OpenEnv's MCPToolClient) and keeps both on one episode", async () => {
    const created = (await (
      await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'openenv/session/create', params: {} })
    ).json()) as { result: { session_id: string; episode_id: string } };
    const { session_id: sessionId, episode_id: first } = created.result;
    const ws = new WebSocket(`${served.baseUrl.replace('http', 'ws')}/openenv/shop/ws?session_id=${sessionId}`);
    sockets.push(ws);
    const reply = (message: unknown): Promise<Record<string, unknown>> =>
      new Promise((resolve) => {
        ws.once('message', (raw: Buffer) => resolve(JSON.parse(raw.toString('utf8')) as Record<string, unknown>));
        ws.send(JSON.stringify(message));
      });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

    const attached = await reply({ type: 'state' });
    const reset = (await reply({ type: 'reset', data: {} })) as { data: { metadata: { episode_id: string } } };
    const listed = await post('/mcp', {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { session_id: sessionId, name: 'finish_episode' },
    });
    const state = await reply({ type: 'state' });

    expect(attached).toMatchObject({ type: 'state', data: { episode_id: first } });
    expect(reset.data.metadata.episode_id).not.toBe(first);
    expect(await listed.json()).toMatchObject({
      result: { _meta: { 'mirror/episode': { episode_id: reset.data.metadata.episode_id, terminated: true } } },
    });
    expect(state).toMatchObject({ data: { episode_id: reset.data.metadata.episode_id, status: 'ended' } });
    await expect(session().then(() => undefined)).resolves.toBeUndefined();
    const unknownSession = new WebSocket(`${served.baseUrl.replace('http', 'ws')}/openenv/shop/ws?session_id=guessed`);
    await expect(
      new Promise((resolve, reject) => unknownSession.once('open', resolve).once('error', reject)),
    ).rejects.toThrow(/404/);
  });

  it('answers a reset past capacity with 429 and Retry-After, over HTTP and in a session', async () => {
    await served.close();
    episodes = new InMemoryEpisodes(1);
    served = await serveProtocols(episodes);
    await post('/reset', {});

    const refused = await post('/reset', {});
    const send = await session();
    const inSession = await send({ type: 'reset', data: {} });

    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(await refused.json()).toMatchObject({ error: { code: 'capacity_exhausted' } });
    expect(inSession).toMatchObject({ type: 'error', data: { code: 'capacity_exhausted', status: 429 } });
    expect(episodes.started).toBe(1);
  });

  it('refuses a WebSocket for an unknown environment', async () => {
    await expect(session('nowhere')).rejects.toThrow(/404/);
  });
});
