import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { Client } from 'pg';

import { minimalSpec, sharedSpecsDir, writeBundle } from '@test/support/bundle-fixtures';
import { repositoryRoot, runCli } from '@test/support/cli-runner';
import { createTestDatabase } from '@test/support/test-services';

/** Real: the built CLI in its own process, PostgreSQL (and PGlite for the first-run case). Mocked: nothing. */
const exampleStack = path.join(repositoryRoot, 'examples', 'acme-procurement');

const countVersions = async (url: string): Promise<number> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: number }>('SELECT count(*)::int AS count FROM stack_versions');
    return rows[0].count;
  } finally {
    await client.end();
  }
};

describe('mirror ingest', () => {
  let database: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database.drop();
  });

  it('prints the stack as JSON, stores it, and is idempotent', async () => {
    const first = await runCli(['ingest', exampleStack, '--json'], { DATABASE_URL: database.url });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const { stack, stored } = JSON.parse(first.stdout) as { stack: any; stored: boolean };
    expect(stored).toBe(true);
    expect(stack).toMatchObject({
      name: 'acme-procurement',
      version: expect.stringMatching(/^[0-9a-f]{64}$/),
      warnings: [],
    });
    expect(stack.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(stack.services).toHaveLength(1);
    expect(stack.services[0]).toMatchObject({ name: 'procurement', dialect: 'openapi-3.1' });
    expect(stack.services[0].operations).toContainEqual({
      id: 'createPurchaseOrder',
      method: 'post',
      path: '/purchase-orders',
    });
    expect(stack.services[0].resources.map((r: { name: string; entity: string }) => [r.name, r.entity])).toEqual([
      ['items', 'items'],
      ['purchase-orders', 'purchase_orders'],
      ['suppliers', 'suppliers'],
      ['suppliers.contacts', 'supplier_contacts'],
    ]);
    expect(stack.entities.map((e: { name: string }) => e.name)).toEqual([
      'employee',
      'suppliers',
      'supplier_contacts',
      'items',
      'purchase_orders',
      'purchase_order_lines',
    ]);

    const again = await runCli(['ingest', exampleStack, '--json'], { DATABASE_URL: database.url });
    const repeated = JSON.parse(again.stdout) as { stack: { id: string; version: string }; stored: boolean };
    expect(repeated).toMatchObject({ stored: false, stack: { id: stack.id, version: stack.version } });
    await expect(countVersions(database.url)).resolves.toBe(1);
  });

  it('refuses bad input with exit code 2, located errors, no stack trace, and stores nothing', async () => {
    const before = await countVersions(database.url);
    const bundle = writeBundle({
      'mirror.yaml': 'name: broken\nservices:\n  - { name: api, spec: api.yaml }\n',
      'api.yaml': minimalSpec("components:\n  schemas:\n    A: { $ref: 'missing.yaml' }\n"),
    });
    const result = await runCli(['ingest', bundle, '--json'], { DATABASE_URL: database.url });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      code: 'REFERENCE_INVALID',
      errors: [
        {
          location: 'api.yaml:14#/components/schemas/A/$ref',
          file: 'api.yaml',
          line: 14,
          pointer: '/components/schemas/A/$ref',
          message: '$ref target file "missing.yaml" does not exist in the bundle',
        },
      ],
    });
    expect(result.stderr).not.toMatch(/\s+at /);
    await expect(countVersions(database.url)).resolves.toBe(before);

    const human = await runCli(['ingest', bundle], { DATABASE_URL: database.url });
    expect(human.code).toBe(2);
    expect(human.stderr).toContain(
      'api.yaml:14#/components/schemas/A/$ref: $ref target file "missing.yaml" does not exist',
    );
  });

  it('answers a usage error with exit code 2', async () => {
    const result = await runCli(['ingest']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'path'");
  });

  it('stores on a first run with no database configured when asked, using embedded PGlite under the data folder', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-first-run-'));
    const env = { DATABASE_URL: '', MIRROR_DATA_DIR: dataDir };
    const spec = path.join(sharedSpecsDir(), 'oai-petstore.yaml');
    const first = await runCli(['ingest', spec, '--store'], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/database: started embedded PGlite on 127\.0\.0\.1:\d+/);
    expect(first.stdout).toContain('stored as a new version');
    const second = await runCli(['ingest', spec, '--store'], env);
    expect(second.stdout).toContain('unchanged: this version was already stored');
    expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(true);
  });
});

describe('mirror diff', () => {
  it('lists added, removed and changed operations and schemas between two bundles', async () => {
    const before = writeBundle({
      'api.yaml': minimalSpec('components:\n  schemas:\n    Thing: { type: string }\n    Gone: { type: string }\n'),
    });
    const after = writeBundle({
      'api.yaml': minimalSpec(
        "  /things/{id}:\n    get:\n      operationId: getThing\n      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]\n      responses: { '200': { description: ok } }\ncomponents:\n  schemas:\n    Thing: { type: integer }\n",
      ),
    });
    const result = await runCli(['diff', before, after, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      changes: [
        { change: 'added', kind: 'operation', name: 'api.getThing' },
        { change: 'changed', kind: 'schema', name: 'api#/components/schemas/Thing' },
        { change: 'removed', kind: 'schema', name: 'api#/components/schemas/Gone' },
      ],
    });
  });

  it('refuses a side that is neither a bundle nor a version', async () => {
    const result = await runCli(['diff', 'no-such-thing', 'either']);
    expect(result).toMatchObject({
      code: 2,
      stderr: 'mirror: "no-such-thing" is neither a bundle path nor a stored version\n',
    });
  });
});

describe('mirror types', () => {
  it('generates TypeScript types for a service with openapi-typescript', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-types-')), 'procurement.ts');
    const result = await runCli(['types', exampleStack, '--service', 'procurement', '--out', out]);
    expect(result.code).toBe(0);
    const source = fs.readFileSync(out, 'utf8');
    expect(source).toContain('export interface paths');
    expect(source).toContain('"/purchase-orders/{poId}/submit"');
    expect(source).toMatch(/PurchaseOrder: components\["schemas"\]\["PurchaseOrderInput"\] & \{/);
  });
});
