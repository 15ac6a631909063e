import * as fs from 'node:fs';
import * as path from 'node:path';

import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import * as yazl from 'yazl';

import { createApiApp } from '@api/bootstrap';
import { loadConfig } from '@libs/config';
import { createDataSource } from '@libs/persistence';
import { minimalSpec, sharedSpecsDir } from '@test/support/bundle-fixtures';
import { repositoryRoot } from '@test/support/cli-runner';
import { createTestDatabase } from '@test/support/test-services';
import { bearer, issueApiKey } from '@test/support/api-keys';

/** Real: the Nest app as main.ts builds it, PostgreSQL with migrations, HTTP through supertest. Mocked: nothing. */
const zipFolder = (folder: string): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const archive = new yazl.ZipFile();
    const walk = (dir: string, prefix: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          walk(full, `${prefix}${entry.name}/`);
        } else {
          archive.addFile(full, `${prefix}${entry.name}`);
        }
      }
    };
    walk(folder, 'acme-procurement/');
    archive.end();
    const chunks: Buffer[] = [];
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    archive.outputStream.on('error', reject);
  });

describe('POST /v1/stacks', () => {
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

  it('answers its probes: live, and ready while its database answers with no migration pending', async () => {
    const live = await request(app.getHttpServer()).get('/healthz');
    const ready = await request(app.getHttpServer()).get('/readyz');
    expect([live.status, live.body]).toEqual([200, { status: 'ok' }]);
    expect([ready.status, ready.body]).toEqual([200, { status: 'ready' }]);
  });

  it('ingests a zipped bundle, answers 201 with the stack, then 200 for the same bundle', async () => {
    const archive = await zipFolder(path.join(repositoryRoot, 'examples', 'acme-procurement'));
    const created = await request(app.getHttpServer())
      .post('/v1/stacks')
      .set(auth)
      .set('content-type', 'application/zip')
      .send(archive);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ stored: true, stack: { name: 'acme-procurement', warnings: [] } });
    expect(created.body.stack.services[0].operations).toHaveLength(12);

    const again = await request(app.getHttpServer())
      .post('/v1/stacks')
      .set(auth)
      .set('content-type', 'application/zip')
      .send(archive);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      stored: false,
      stack: { id: created.body.stack.id, version: created.body.stack.version },
    });

    const fetched = await request(app.getHttpServer())
      .get(`/v1/stacks/${created.body.stack.id as string}`)
      .set(auth);
    expect(fetched.status).toBe(200);
    expect(fetched.body.stack.version).toBe(created.body.stack.version);
    const listed = await request(app.getHttpServer()).get('/v1/stacks').set(auth);
    expect(listed.body.stacks.map((s: { name: string }) => s.name)).toContain('acme-procurement');
  });

  it('ingests a single JSON spec sent as the body', async () => {
    // As text: superagent would re-encode a Buffer sent with a JSON content type.
    const body = fs.readFileSync(path.join(sharedSpecsDir(), 'box.json'), 'utf8');
    const response = await request(app.getHttpServer())
      .post('/v1/stacks?filename=box.json')
      .set(auth)
      .set('content-type', 'application/json')
      .send(body);
    expect(response.body).toMatchObject({ stored: true });
    expect(response.status).toBe(201);
    expect(response.body.stack.services[0].operations).toHaveLength(296);
  });

  it.each([
    [
      'a spec with a broken reference',
      'application/yaml',
      minimalSpec("components:\n  schemas:\n    A: { $ref: '#/nowhere' }\n"),
      422,
      {
        code: 'REFERENCE_INVALID',
        errors: [
          {
            location: 'openapi.yaml:14#/components/schemas/A/$ref',
            file: 'openapi.yaml',
            line: 14,
            pointer: '/components/schemas/A/$ref',
            message: '$ref "#/nowhere" does not resolve: "/nowhere" is not in openapi.yaml',
          },
        ],
      },
    ],
    [
      'unparsable YAML',
      'application/yaml',
      'openapi: [3.0\n',
      400,
      {
        code: 'DOCUMENT_UNPARSABLE',
        errors: [
          {
            location: 'openapi.yaml:2',
            file: 'openapi.yaml',
            line: 2,
            pointer: '',
            message: 'invalid YAML: unexpected end of the stream within a flow collection',
          },
        ],
      },
    ],
    [
      'an empty body',
      'application/json',
      '',
      400,
      { code: 'BAD_REQUEST', message: 'empty body: send a bundle archive or an OpenAPI document' },
    ],
  ])(
    'refuses %s with a 4xx and the located errors, storing nothing',
    async (_name, contentType, body, status, expected) => {
      const before = await versionCount();
      const response = await request(app.getHttpServer())
        .post('/v1/stacks')
        .set(auth)
        .set('content-type', contentType)
        .send(body);
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ statusCode: status, ...expected, errorId: expect.any(String) });
      await expect(versionCount()).resolves.toBe(before);
    },
  );

  it('answers 413 for a body over the bundle limit', async () => {
    const response = await request(app.getHttpServer())
      .post('/v1/stacks')
      .set(auth)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.alloc(100 * 1024 * 1024));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers 404 for an unknown stack, whatever the id looks like', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', "1' OR '1'='1"]) {
      const response = await request(app.getHttpServer())
        .get(`/v1/stacks/${encodeURIComponent(id)}`)
        .set(auth);
      expect(response.status).toBe(404);
    }
  });
});

describe('GET /readyz', () => {
  it('answers 503 naming the cause when the database does not answer', async () => {
    const database = await createTestDatabase();
    const dataSource = createDataSource(database.url);
    await dataSource.initialize();
    const app = await createApiApp(loadConfig({ DATABASE_URL: database.url }), dataSource, false);
    await app.init();
    try {
      await dataSource.destroy();
      const response = await request(app.getHttpServer()).get('/readyz');
      expect(response.status).toBe(503);
      expect(JSON.stringify(response.body)).toMatch(/not ready/);
      await request(app.getHttpServer()).get('/healthz').expect(200);
    } finally {
      await app.close();
      await database.drop();
    }
  });
});
