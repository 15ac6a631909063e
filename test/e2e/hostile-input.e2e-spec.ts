import * as path from 'node:path';

import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import * as yazl from 'yazl';

import { createApiApp } from '@api/bootstrap';
import { loadConfig } from '@libs/config';
import { createDataSource } from '@libs/persistence';
import { minimalSpec, writeBundle } from '@test/support/bundle-fixtures';
import { runCli } from '@test/support/cli-runner';
import { createTestDatabase } from '@test/support/test-services';
import { bearer, issueApiKey } from '@test/support/api-keys';

import { billionLaughsYaml, referenceFanOut } from '../hostile/hostile-specs';

/**
 * The attacks of issue 17 through the doors a user has: the built CLI in its own process (its heap capped at 256 MB,
 * so a parse that grows past it crashes instead of passing) and the API app with PostgreSQL. Mocked: nothing.
 * Time bounds are generous for a loaded machine; unbounded, each attack ran for minutes.
 */
const zip = (files: Record<string, string>): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const archive = new yazl.ZipFile();
    for (const [name, text] of Object.entries(files)) {
      archive.addBuffer(Buffer.from(text), name);
    }
    archive.end();
    const chunks: Buffer[] = [];
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    archive.outputStream.on('error', reject);
  });

const fanOutBundle = (): Record<string, string> => ({
  'mirror.yaml': 'name: fan\nservices:\n  - { name: api, spec: openapi.json }\n',
  ...referenceFanOut(),
});

describe('hostile input through the CLI and the API', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let app: INestApplication;
  let auth: { Authorization: string };

  const versionCount = async (): Promise<number> =>
    (await dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM stack_versions'))[0].count;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    app = await createApiApp(loadConfig({ DATABASE_URL: database.url }), dataSource, false);
    await app.init();
    auth = bearer((await issueApiKey(dataSource, 'default', 'engineer')).token);
  });

  afterAll(async () => {
    await app.close();
    await dataSource.destroy();
    await database.drop();
  });

  it.each([
    [
      'a billion-laughs YAML',
      () => path.join(writeBundle({ 'laughs.yaml': billionLaughsYaml() }), 'laughs.yaml'),
      'laughs.yaml:9#/x-lol6: YAML aliases expand this to more than 1,000,000 nodes',
    ],
    [
      'a 2^40 $ref fan-out',
      () => writeBundle(fanOutBundle()),
      /parts\.json:1#\/P\d+\/\S+: nesting deeper than 128 levels once bundled/,
    ],
  ])(
    'mirror ingest refuses %s: exit 2 with the location, quickly, in a capped heap, storing nothing',
    async (_name, bundle, message) => {
      const started = performance.now();
      const result = await runCli(['ingest', bundle()], {
        DATABASE_URL: database.url,
        NODE_OPTIONS: '--max-old-space-size=256',
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect((performance.now() - started) / 1000).toBeLessThan(15);
      await expect(versionCount()).resolves.toBe(0);
    },
  );

  it.each([
    [
      'a billion-laughs YAML',
      'application/yaml',
      () => Promise.resolve(Buffer.from(billionLaughsYaml())),
      { code: 'DOCUMENT_UNPARSABLE', location: 'openapi.yaml:9#/x-lol6' },
    ],
    [
      'a 2^40 $ref fan-out',
      'application/zip',
      () => zip(fanOutBundle()),
      { code: 'REFERENCE_INVALID', location: expect.stringMatching(/parts\.json:1#\/P\d+\//) },
    ],
  ])(
    'POST /v1/stacks refuses %s with a 4xx while GET /v1/stacks keeps answering',
    async (_name, type, body, expected) => {
      const server = app.getHttpServer();
      const started = performance.now();
      const [posted, listed] = await Promise.all([
        body().then((content) => request(server).post('/v1/stacks').set(auth).set('content-type', type).send(content)),
        request(server).get('/v1/stacks').set(auth),
      ]);
      expect(listed.status).toBe(200);
      expect(posted.status).toBeGreaterThanOrEqual(400);
      expect(posted.status).toBeLessThan(500);
      expect(posted.body).toMatchObject({
        code: expected.code,
        errors: [expect.objectContaining({ location: expected.location })],
      });
      expect((performance.now() - started) / 1000).toBeLessThan(10);
      await expect(versionCount()).resolves.toBe(0);
    },
  );

  it('names an upload without a file name by its title, so two specs are two stacks, and refuses one without a title', async () => {
    const server = app.getHttpServer();
    const first = await request(server)
      .post('/v1/stacks')
      .set(auth)
      .set('content-type', 'application/yaml')
      .send(minimalSpec());
    const other = minimalSpec().replace('title: Minimal', 'title: Other Service');
    const second = await request(server)
      .post('/v1/stacks')
      .set(auth)
      .set('content-type', 'application/yaml')
      .send(other);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect([first.body.stack.name, second.body.stack.name]).toEqual(['minimal', 'other-service']);
    expect(second.body.stack.id).not.toBe(first.body.stack.id);

    const untitled = minimalSpec().replace('  title: Minimal\n', '');
    const refused = await request(server)
      .post('/v1/stacks')
      .set(auth)
      .set('content-type', 'application/yaml')
      .send(untitled);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].message).toMatch(
      /without a file name is named by its content, and the spec has no info\.title/,
    );
  });
});
