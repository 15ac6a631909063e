import { AddressInfo } from 'node:net';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WebSocket } from 'ws';

import { InMemoryEpisodes } from '@test/support/episode-protocols/in-memory-episodes';
import { everyoneAdmitted } from '@test/support/episode-protocols/protocol-server';

import { mountEpisodeProtocols } from './mount-episode-protocols';

@Module({})
class EmptyModule {}

describe(mountEpisodeProtocols.name, () => {
  let app: INestApplication;
  let baseUrl: string;
  let episodes: InMemoryEpisodes;

  beforeEach(async () => {
    episodes = new InMemoryEpisodes();
    // As the api app is built: Nest's body parser off, so the protocols read their own bodies.
    app = await NestFactory.create(EmptyModule, { bodyParser: false, logger: false });
    mountEpisodeProtocols(app, episodes, everyoneAdmitted);
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterEach(() => app.close());

  it('serves MCP, the OpenEnv routes and its WebSocket on the Nest app', async () => {
    const start = await episodes.start({ environment: 'shop', task: 'refund@1' });
    const client = new Client(
      { name: 'mount-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/v1/episodes/${start.episodeId}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${start.token}` } },
      }),
    );
    const { tools } = await client.listTools();
    await client.close();
    const reset = await fetch(`${baseUrl}/openenv/shop/reset`, { method: 'POST' });
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/openenv/shop/ws`);
    const state = await new Promise<unknown>((resolve, reject) => {
      ws.once('open', () => ws.send(JSON.stringify({ type: 'state' })));
      ws.once('message', (raw: Buffer) => resolve(JSON.parse(raw.toString('utf8'))));
      ws.once('error', reject);
    });
    ws.close();

    expect(tools).toHaveLength(start.tools.length);
    expect(reset.status).toBe(200);
    expect(state).toEqual({ type: 'state', data: { episode_id: null, step_count: 0 } });
  });
});
