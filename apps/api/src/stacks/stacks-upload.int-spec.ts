import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';

import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { createApiApp } from '@api/bootstrap';
import { loadConfig } from '@libs/config';
import { createDataSource } from '@libs/persistence';
import { issueApiKey } from '@test/support/api-keys';
import { minimalSpec } from '@test/support/bundle-fixtures';
import { createTestDatabase } from '@test/support/test-services';

/** What came back for an upload, and whether the server closed the connection. */
interface Answer {
  status: number;
  body: string;
  /** The server closed the connection instead of reading the rest. */
  closed: boolean;
}

/**
 * Real: the api app as main.ts builds it, PostgreSQL with the migrations, keys made as the operator makes them, a raw
 * HTTP client. Mocked: nothing. An upload announces 50 MB and sends 64 KB of it, then waits: the answer can only
 * come before the body is read. Reading first (as a body parser in front of the guard did) answers nothing until the
 * 50 MB arrive, and this test never sends them.
 */
describe('POST /v1/stacks authenticates before it reads the body', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let app: INestApplication;
  let port: number;
  const declared = 50 * 1024 * 1024;

  /** Sends `body` whole when given; else announces 50 MB and sends the first 64 KB of it. */
  const upload = (authorization: string | undefined, whole?: Buffer): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/stacks?filename=spec.yaml',
        headers: {
          'content-type': 'application/yaml',
          'content-length': String(whole?.length ?? declared),
          ...(authorization ? { authorization } : {}),
        },
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            closed: response.headers.connection === 'close',
          }),
        );
      });
      // The server may close while the client still writes: that is the refusal working, not a failure.
      request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? undefined : reject(error)));
      request.write(whole ?? Buffer.alloc(64 * 1024, 'x'));
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    app = await createApiApp(loadConfig({ DATABASE_URL: database.url }), dataSource, false);
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await app.close();
    await dataSource.destroy();
    await database.drop();
  });

  it('refuses a 50 MB upload without a key after 64 KB of it, and closes the connection', async () => {
    const answer = await upload(undefined);

    expect([answer.status, answer.closed]).toEqual([401, true]);
    expect(JSON.parse(answer.body)).toMatchObject({ message: 'missing API key: send Authorization: Bearer <key>' });
  });

  it('refuses it likewise for a key that may not ingest, and for a key that is not one', async () => {
    const reviewer = await issueApiKey(dataSource, 'acme', 'reviewer');

    const forbidden = await upload(`Bearer ${reviewer.token}`);
    const unknown = await upload('Bearer mk_0123456789abcdef_notasecret');

    expect([forbidden.status, forbidden.closed]).toEqual([403, true]);
    expect(JSON.parse(forbidden.body)).toMatchObject({ message: 'role reviewer may not stacks:ingest' });
    expect(unknown.status).toBe(401);
  });

  it('reads the body of a caller who may ingest, and stores nothing for the refused ones', async () => {
    const engineer = await issueApiKey(dataSource, 'acme', 'engineer');

    const answer = await upload(`Bearer ${engineer.token}`, Buffer.from(minimalSpec()));

    expect(answer.status).toBe(201);
    const stacks = await dataSource.query<{ tenant_id: string }[]>('SELECT tenant_id FROM stacks');
    expect(stacks).toEqual([{ tenant_id: 'acme' }]);
  });
});
