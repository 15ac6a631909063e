import * as net from 'node:net';
import * as os from 'node:os';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { repositoryRoot, runCli } from '@test/support/cli-runner';
import { serve } from '@test/support/serve-runner';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

const fixture = (name: string): string => path.join(repositoryRoot, 'test', 'fixtures', 'fidelity', 'robust', name);

const listenOn = (port: number): Promise<net.Server | undefined> =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

const close = (server: net.Server): Promise<void> => new Promise((done) => server.close(() => done()));

/**
 * Holds a port the way another program would, until released. Below the kernel's ephemeral range, and with the next
 * port free: `up` puts its gateway on --port + 1, and a port the kernel hands to an outgoing connection (as a loaded
 * test run opens many) made `up` fail on the gateway's port instead of the held one.
 */
const holdPort = async (): Promise<{ port: number; release: () => Promise<void> }> => {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const held = await listenOn(port);
    if (!held) {
      continue;
    }
    const next = await listenOn(port + 1);
    if (next) {
      await close(next);
      return { port, release: () => close(held) };
    }
    await close(held);
  }
};

/** Real: the built CLI in its own process, PostgreSQL, the Temporal dev server. Mocked: nothing. */
describe('mirror serve, up and ingest at start-up', () => {
  let database: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database.drop();
  });

  it('serve exits 1 naming the port in use, instead of hanging on the database it opened', async () => {
    const held = await holdPort();
    try {
      const result = await runCli(['serve', fixture('duplicate-required.yaml'), '--port', String(held.port)], {
        DATABASE_URL: database.url,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`mirror: port ${held.port} on 127.0.0.1 is already in use; choose another`);
      expect(result.stderr).not.toMatch(/\s+at /);
    } finally {
      await held.release();
    }
  });

  it('up exits 1 naming the port in use, after stopping what it started', async () => {
    const held = await holdPort();
    try {
      const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-up-port-'));
      fs.copyFileSync(fixture('duplicate-required.yaml'), path.join(bundle, 'api.yaml'));
      fs.writeFileSync(
        path.join(bundle, 'mirror.yaml'),
        'name: tickets\nservices:\n  - { name: tickets, spec: api.yaml }\n',
      );
      const result = await runCli(['up', bundle, '--port', String(held.port)], {
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`port ${held.port} on 127.0.0.1 is already in use`);
    } finally {
      await held.release();
    }
  });

  it('serves the specs that crashed it: a templated $id in example data and in a schema, a property required twice', async () => {
    for (const name of ['id-in-examples.yaml', 'id-in-schema.yaml', 'duplicate-required.yaml']) {
      const served = await serve(database.url, [fixture(name)]);
      try {
        const [service] = served.ready.services;
        const route = name === 'id-in-examples.yaml' ? 'schemas' : name === 'id-in-schema.yaml' ? 'widgets' : 'tickets';
        const post = (body: unknown) =>
          fetch(`${service.baseUrl}/${route}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const valid = { name: 'order', subject: 'Printer', status: 'open', document: { $id: 'https://{host}/x' } };
        expect([name, (await post(valid)).status]).toEqual([name, 201]);
        const refused = (await post({ status: 'open' })).status;
        expect([name, refused >= 400 && refused < 500]).toEqual([name, true]);
      } finally {
        served.child.kill('SIGTERM');
        await new Promise((resolve) => served.child.once('close', resolve));
      }
    }
  });

  it('ingest checks a lone spec without starting a database when none is configured', async () => {
    const result = await runCli(['ingest', fixture('duplicate-required.yaml')], {
      DATABASE_URL: '',
      MIRROR_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-no-store-')),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('not stored: no DATABASE_URL (pass --store');
    expect(result.stderr).not.toContain('database:');
  });
});
