import * as path from 'node:path';

import { DataSource } from 'typeorm';

import { writeBundle } from '@test/support/bundle-fixtures';
import { createTestDatabase } from '@test/support/test-services';
import { ingestStack } from '@libs/stack-ingestion';
import { Episode, serializeBody, StaticStackSource, TwinEngine, TwinResponse } from '@libs/twin-engine';

import { createDataSource } from '../data-source';
import { PostgresEpisodeStore } from './postgres-episode.store';

/**
 * A resource with int64 fields, one bounded below int64's maximum, for integers beyond 2^53 sent in bodies. The bound
 * is one JavaScript holds exactly (2^53 + 2): the spec itself is parsed with JSON numbers.
 */
const spec = `openapi: 3.0.3
info: {title: sizes, version: "1"}
paths:
  /files:
    get:
      parameters:
        - {name: file_size, in: query, schema: {type: integer, format: int64}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/File"}}}}}
    post:
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/File"}}}
      responses:
        "201": {description: made, content: {application/json: {schema: {$ref: "#/components/schemas/File"}}}}
        "400": {description: bad, content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}}
  /files/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/File"}}}}
        "404": {description: missing, content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}}
components:
  schemas:
    Problem:
      type: object
      properties: {code: {type: string}, detail: {type: string}}
    File:
      type: object
      required: [name, file_size]
      properties:
        id: {type: string, readOnly: true}
        name: {type: string}
        file_size: {type: integer, format: int64}
        limit: {type: integer, format: int64, maximum: 9007199254740994}
        parts: {type: array, items: {type: integer, format: int64}}
`;

/**
 * Real: PostgreSQL with the committed migrations, ingestion of a spec written for the test, the engine, its
 * eviction, rebuild from the log and fork. Integers beyond 2^53 sent in a JSON body are answered, stored, read back
 * from the log and forked as the digits sent.
 */
describe('integers beyond 2^53 in JSON bodies, kept exact end to end', () => {
  const service = 'sizes';
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let engine: TwinEngine;
  let episode: Episode;

  const call = async (target: Episode, method: string, pathAndQuery: string, body?: string) => {
    const [pathOnly, search = ''] = pathAndQuery.split('?');
    const response: TwinResponse = await target.handle(
      service,
      {
        method,
        path: pathOnly,
        query: new URLSearchParams(search),
        search,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : Buffer.from(body),
      },
      `http://twin${pathAndQuery}`,
    );
    return { status: response.status, text: String(serializeBody(response) ?? '') };
  };

  /** The record's integers as they were sent, digit for digit, as bare JSON numbers. */
  const expectExact = (text: string) => {
    expect(text).toContain('"file_size":9007199254740993');
    expect(text).toContain('"limit":9007199254740993');
    expect(text).toContain('"parts":[9223372036854775807,-9223372036854775808,7]');
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(writeBundle({ 'sizes.yaml': spec }), 'sizes.yaml'),
    });
    engine = new TwinEngine(new PostgresEpisodeStore(dataSource), new StaticStackSource(model));
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 1 });
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it('answers, stores, filters on, rebuilds and forks the digits sent', async () => {
    const created = await call(
      episode,
      'POST',
      '/files',
      '{"name":"big","file_size":9007199254740993,"limit":9007199254740993,"parts":[9223372036854775807,-9223372036854775808,7]}',
    );
    expect(created.status).toBe(201);
    expect(created.text).toContain('"file_size":9007199254740993');
    expect(created.text).toContain('"parts":[9223372036854775807,-9223372036854775808,7]');
    expect(created.text).not.toContain('\\u0000');
    const { id } = JSON.parse(created.text) as { id: string };

    const read = await call(episode, 'GET', `/files/${id}`);
    expect(read.status).toBe(200);
    expectExact(read.text);

    // The record holds the digits; a filter on them finds it, and its rounded neighbour does not.
    const found = await call(episode, 'GET', '/files?file_size=9007199254740993');
    expect(found.status).toBe(200);
    expect((JSON.parse(found.text) as { id: string }[]).map((file) => file.id)).toEqual([id]);
    const neighbour = await call(episode, 'GET', '/files?file_size=9007199254740992');
    expect(neighbour.text).not.toContain(`"id":${JSON.stringify(id)}`);

    // Dropped from memory, rebuilt from the log in PostgreSQL: the same digits.
    engine.evict(episode.id);
    const rebuilt = await engine.episode('test', episode.id);
    expect(rebuilt).not.toBe(episode);
    // (jsonb orders keys its own way, so the rebuilt record's fields may come in another order.)
    expectExact((await call(rebuilt, 'GET', `/files/${id}`)).text);

    // A fork copies the log inside PostgreSQL and replays it: the same digits.
    const fork = await engine.fork('test', episode.id);
    expectExact((await call(fork, 'GET', `/files/${id}`)).text);
  });

  it.each([
    ['beyond int64', '{"name":"x","file_size":9223372036854775808}', 'body/file_size', '9223372036854775808'],
    ['below int64', '{"name":"x","file_size":-9223372036854775809}', 'body/file_size', '-9223372036854775809'],
    // 9007199254740995's nearest number is past the maximum too: the validator refuses it, located.
    ['beyond its maximum', '{"name":"x","file_size":1,"limit":9007199254740995}', 'body/limit', '9007199254740994'],
    [
      'in a list beyond int64',
      '{"name":"x","file_size":1,"parts":[1,99999999999999999999]}',
      'body/parts/1',
      '99999999999999999999',
    ],
  ])('refuses an integer %s with a located 400 and records nothing', async (_, body, location, digits) => {
    const seq = episode.state.seq;
    const refused = await call(episode, 'POST', '/files', body);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(location);
    expect(refused.text).toContain(digits);
    expect(episode.state.seq).toBe(seq);
  });

  it('takes an integer written with a fraction or an exponent as the digits it denotes, within int64', async () => {
    const created = await call(
      episode,
      'POST',
      '/files',
      '{"name":"e","file_size":9.007199254740993e15,"limit":9007199254740993.0,"parts":[9.223372036854775807E18,-9223372036854775808.00,7e0]}',
    );
    expect(created.status).toBe(201);
    const { id } = JSON.parse(created.text) as { id: string };
    engine.evict(episode.id);
    episode = await engine.episode('test', episode.id);
    expectExact((await call(episode, 'GET', `/files/${id}`)).text);
    const seq = episode.state.seq;
    const refused = await call(episode, 'POST', '/files', '{"name":"x","file_size":1e19}');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('body/file_size');
    expect(refused.text).toContain('10000000000000000000');
    expect(episode.state.seq).toBe(seq);
  });

  it('refuses a number that is no number JavaScript holds (1e400), located, and a string for an integer', async () => {
    const infinite = await call(episode, 'POST', '/files', '{"name":"x","file_size":1,"limit":1e400}');
    expect(infinite.status).toBe(400);
    expect(infinite.text).toContain('body/limit');
    const text = await call(episode, 'POST', '/files', '{"name":"x","file_size":"9007199254740993"}');
    expect(text.status).toBe(400);
    expect(text.text).toContain('body/file_size');
  });
});
