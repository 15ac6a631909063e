import { request as httpRequest } from 'node:http';

import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { EpisodeStart } from '@libs/agent-tools';
import { InMemoryEpisodes } from '@test/support/episode-protocols/in-memory-episodes';
import { serveProtocols } from '@test/support/episode-protocols/protocol-server';

import { EPISODE_META_KEY } from './episode-mcp-server';

const MODERN = '2026-07-28';

describe('MCP per episode (/v1/episodes/{id}/mcp)', () => {
  let episodes: InMemoryEpisodes;
  let served: Awaited<ReturnType<typeof serveProtocols>>;
  let episode: EpisodeStart;
  const clients: Client[] = [];

  const mcpUrl = (id: string): URL => new URL(`${served.baseUrl}/v1/episodes/${id}/mcp`);
  const connect = async (start: EpisodeStart, era: 'modern' | 'legacy' = 'modern'): Promise<Client> => {
    const client = new Client(
      { name: 'episode-test', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
    );
    const transport = new StreamableHTTPClientTransport(mcpUrl(start.episodeId), {
      requestInit: { headers: { Authorization: `Bearer ${start.token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const rawPost = (id: string, headers: Record<string, string>, body: string): Promise<Response> =>
    fetch(mcpUrl(id), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body,
    });
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old-client', version: '1' } },
  });

  beforeEach(async () => {
    episodes = new InMemoryEpisodes();
    served = await serveProtocols(episodes);
    episode = await episodes.start({ environment: 'shop', task: 'refund@1' });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await served.close();
    // An error the adapter could not map is a bug even when the answer looked right.
    if (served.errors.length > 0) {
      throw new Error(`unexpected adapter errors: ${String(served.errors)}`);
    }
  });

  it('lets the official client drive an episode to a graded end over the 2026-07-28 revision', async () => {
    const sut = await connect(episode);

    const { tools } = await sut.listTools();
    const calls = [
      await sut.callTool({ name: 'orders_get_order', arguments: { order_id: 'ord-1' } }),
      await sut.callTool({ name: 'orders_refund_order', arguments: { order_id: 'ord-1', amount: 40 } }),
      await sut.callTool({ name: 'finish_episode', arguments: {} }),
    ];

    expect(sut.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(tools.map((tool) => tool.name)).toEqual(episode.tools.map((tool) => tool.name));
    expect(tools[1]).toEqual({
      name: 'orders_refund_order',
      description: 'Refunds an order.',
      inputSchema: episode.tools[1]?.inputSchema,
      annotations: episode.tools[1]?.annotations,
    });
    expect(calls[1]).toMatchObject({
      isError: false,
      structuredContent: { id: 'ord-1', refunded: 40 },
      content: [{ type: 'text', text: '{"id":"ord-1","refunded":40}' }],
    });
    expect(calls[2]?._meta?.[EPISODE_META_KEY]).toEqual({
      episode_id: episode.episodeId,
      terminated: true,
      truncated: false,
      reward: 1,
    });
    await expect(episodes.status(episode.episodeId, episode.token)).resolves.toMatchObject({
      status: 'ended',
      result: { reward: 1, passed: true },
    });
  });

  it('serves a 2025-era client through the stateless legacy fallback, with no protocol session', async () => {
    const sut = await connect(episode, 'legacy');

    const listed = await sut.listTools();
    const called = await sut.callTool({ name: 'orders_get_order', arguments: { order_id: 'ord-1' } });
    const handshake = await rawPost(episode.episodeId, { Authorization: `Bearer ${episode.token}` }, initialize);

    expect(sut.getNegotiatedProtocolVersion()).not.toBe(MODERN);
    expect(listed.tools).toHaveLength(episode.tools.length);
    expect(called).toMatchObject({ isError: false, structuredContent: { id: 'ord-1', total: 40 } });
    expect(handshake.status).toBe(200);
    expect(handshake.headers.get('mcp-session-id')).toBeNull();
    expect(await handshake.text()).toContain('"protocolVersion":"2025-06-18"');
  });

  it("answers the twin's 4xx and refused arguments as isError results carrying their bodies", async () => {
    const sut = await connect(episode);

    const twinError = await sut.callTool({ name: 'orders_get_order', arguments: { order_id: 'ord-9' } });
    const refused = await sut.callTool({
      name: 'orders_refund_order',
      arguments: { order_id: 'ord-1', amount: 'all' },
    });

    expect(twinError).toMatchObject({
      isError: true,
      structuredContent: { status: 404, body: { message: 'no order ord-9' } },
    });
    expect(refused).toMatchObject({ isError: true, structuredContent: { problems: ['/amount: must be number'] } });
    await expect(episodes.status(episode.episodeId, episode.token)).resolves.toMatchObject({ status: 'running' });
  });

  it("answers an unknown tool with the protocol's invalid-params error and calls nothing", async () => {
    const sut = await connect(episode);

    const unknown = sut.callTool({ name: 'orders_delete_everything', arguments: {} });

    await expect(unknown).rejects.toBeInstanceOf(ProtocolError);
    await expect(unknown).rejects.toMatchObject({ code: -32602 });
    expect(episodes.calls).toEqual([]);
  });

  it("refuses a request without a token (401), with another episode's (403), for an unknown (404) or deleted (410) episode", async () => {
    const other = await episodes.start({ environment: 'shop', task: 'refund@2' });
    const deleted = await episodes.start({ environment: 'shop', task: 'refund@3' });
    episodes.delete(deleted.episodeId);

    const answers = await Promise.all([
      rawPost(episode.episodeId, {}, initialize),
      rawPost(episode.episodeId, { Authorization: 'Basic abc' }, initialize),
      rawPost(episode.episodeId, { Authorization: `Bearer ${other.token}` }, initialize),
      rawPost('no-such-episode', { Authorization: `Bearer ${episode.token}` }, initialize),
      rawPost(deleted.episodeId, { Authorization: `Bearer ${deleted.token}` }, initialize),
    ]);

    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 403, 404, 410]);
    expect(answers[0]?.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await answers[2]?.json()).toEqual({
      error: { code: 'token_invalid', message: expect.any(String), episode_id: episode.episodeId },
    });
    expect(await answers[4]?.json()).toMatchObject({ error: { code: 'episode_deleted' } });
    expect(episodes.calls).toEqual([]);
  });

  it('answers calls after the end as isError results naming episode_ended, and changes nothing', async () => {
    const sut = await connect(episode);
    await sut.callTool({ name: 'finish_episode', arguments: {} });

    const late = await sut.callTool({ name: 'orders_refund_order', arguments: { order_id: 'ord-1', amount: 40 } });

    expect(late).toMatchObject({ isError: true, structuredContent: { error: { code: 'episode_ended' } } });
    expect(episodes.calls).toHaveLength(1);
    await expect(episodes.status(episode.episodeId, episode.token)).resolves.toMatchObject({ result: { reward: 0 } });
  });

  it('refuses a body that is not JSON with a parse error and calls nothing', async () => {
    const answer = await rawPost(episode.episodeId, { Authorization: `Bearer ${episode.token}` }, '{"jsonrpc": ');

    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(await answer.text()).toContain('-32700');
    expect(episodes.calls).toEqual([]);
  });

  it('refuses a renamed Host or a foreign browser Origin (DNS rebinding) before the token is even read', async () => {
    const statusOf = (headers: Record<string, string>, path: string): Promise<number | undefined> =>
      new Promise((resolve, reject) => {
        const { port } = new URL(served.baseUrl);
        const sent = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path,
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
          },
          (answer) => {
            answer.resume();
            resolve(answer.statusCode);
          },
        );
        sent.on('error', reject);
        sent.end(initialize);
      });
    const auth = { Authorization: `Bearer ${episode.token}` };
    const mcpPath = `/v1/episodes/${episode.episodeId}/mcp`;

    const answers = await Promise.all([
      statusOf({ ...auth, Host: 'evil.example' }, mcpPath),
      statusOf({ ...auth, Origin: 'http://evil.example' }, mcpPath),
      statusOf({ Host: 'evil.example' }, '/openenv/shop/reset'),
      statusOf({ ...auth, Origin: 'http://localhost:3000' }, mcpPath),
    ]);

    expect(answers).toEqual([403, 403, 403, 200]);
    expect(episodes.started).toBe(1);
  });
});
