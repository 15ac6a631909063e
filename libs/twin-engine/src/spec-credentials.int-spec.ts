import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import * as yaml from 'js-yaml';

import { ingestStack } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { TwinRequest } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

const spec = {
  openapi: '3.0.3',
  info: { title: 'Notes', version: '1' },
  servers: [{ url: 'https://notes.example.com/v1' }],
  security: [{ header: [] }, { query: [] }, { basic: [] }, { session: [] }],
  components: {
    securitySchemes: {
      header: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      query: { type: 'apiKey', in: 'query', name: 'api_key' },
      basic: { type: 'http', scheme: 'basic' },
      session: { type: 'apiKey', in: 'cookie', name: 'sid' },
    },
    schemas: {
      Note: {
        type: 'object',
        required: ['id', 'text'],
        properties: { id: { type: 'string' }, text: { type: 'string' } },
      },
    },
  },
  paths: {
    '/notes': {
      get: {
        operationId: 'listNotes',
        responses: {
          '200': {
            description: 'notes',
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Note' } } },
            },
          },
        },
      },
      post: {
        operationId: 'createNote',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', properties: { text: { type: 'string' } } } } },
        },
        responses: {
          '201': {
            description: 'made',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } },
          },
        },
      },
    },
  },
};

/**
 * Real: ingestion of a bundle with a spec of its own and a data service (so its world has people), the twin engine,
 * the read memo. The event store is the in-memory one.
 */
describe('a spec twin in a world with people', () => {
  let engine: TwinEngine;
  let episode: Episode;
  let token: string;
  let agent: string;
  let folder: string;

  const request = (init: Partial<TwinRequest> & { query?: URLSearchParams } = {}): TwinRequest => ({
    method: 'GET',
    path: '/notes',
    query: new URLSearchParams(),
    headers: {},
    ...init,
  });
  const call = (init: Partial<TwinRequest> = {}) => episode.handle('notes', request(init), 'http://twin/notes');

  beforeAll(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-spec-credentials-'));
    fs.writeFileSync(path.join(folder, 'notes.yaml'), yaml.dump(spec));
    fs.writeFileSync(path.join(folder, 'people.sql'), 'CREATE TABLE teams (id serial PRIMARY KEY, name text);\n');
    fs.writeFileSync(
      path.join(folder, 'mirror.yaml'),
      yaml.dump({
        name: 'notes',
        services: [
          { name: 'notes', spec: 'notes.yaml' },
          { name: 'teams', schema: 'people.sql' },
        ],
      }),
    );
    const { model, version } = await ingestStack({ kind: 'path', path: folder });
    engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 2 });
    agent = (episode.twin.world.company as Company).agent.id;
    token = episode.agentTokenFor('notes') as string;
  });

  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('takes the token wherever the spec puts credentials', async () => {
    expect(token).toContain(agent);
    expect((await call({ headers: { 'x-api-key': token } })).status).toBe(200);
    expect((await call({ query: new URLSearchParams({ api_key: token }) })).status).toBe(200);
    const basic = Buffer.from(`${token}:`).toString('base64');
    expect((await call({ headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
    expect((await call({ headers: { cookie: `theme=dark; sid=${token}` } })).status).toBe(200);
  });

  it('takes it only where the spec puts credentials: the spec declares no bearer scheme', async () => {
    expect((await call({ headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('refuses a call without one, even right after the same read was answered to a key in a header', async () => {
    expect((await call({ headers: { 'x-api-key': token } })).status).toBe(200);
    const anonymous = await call();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(
      'ApiKey realm="notes", in="header", name="X-Api-Key", ApiKey realm="notes", in="query", name="api_key", ' +
        'Basic realm="notes", charset="UTF-8", ApiKey realm="notes", in="cookie", name="sid"',
    );
    expect((await call({ headers: { cookie: 'sid=nothing' } })).status).toBe(401);
  });

  it('attributes writes to the caller, and logs a forged token with whom it claimed', async () => {
    const body = Buffer.from(JSON.stringify({ text: 'hello' }));
    const headers = { 'content-type': 'application/json' };
    const made = await call({ method: 'POST', body, headers: { ...headers, 'x-api-key': token } });
    expect(made.status).toBe(201);
    const forged = token.replace(/^mirror_[0-9a-f]{32}_/, `mirror_${'0'.repeat(32)}_`).replace(agent, 'E0042');
    const refused = await call({ method: 'POST', body, headers: { ...headers, 'x-api-key': forged } });
    expect(refused.status).toBe(401);
    const other = episode.tokenFor('teams', agent) as string;
    expect((await call({ headers: { 'x-api-key': other } })).status).toBe(401);
    const events = await engine.events('test', episode.id);
    const created = events.filter((e) => e.event.type === 'record.created');
    expect(created.map((e) => e.actor)).toEqual([agent]);
    expect(events.map((e) => e.event)).toContainEqual(
      expect.objectContaining({ type: 'operation.refused', service: 'notes', status: 401, claimed: 'E0042' }),
    );
  });
});
