import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { json } from '@test/support/gateway-harness';
import { createTestDatabase } from '@test/support/test-services';

interface Served {
  child: ChildProcess;
  ready: { episodeId: string; gateway: string; services: { name: string; baseUrl: string }[] };
}

/** Starts `mirror serve --json` as a user would and waits for its one line of base URLs. */
const serve = (databaseUrl: string): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(repositoryRoot, 'bin', 'mirror.js'),
        'serve',
        'examples/acme-procurement',
        '--port',
        '0',
        '--seed',
        '9',
        '--json',
      ],
      {
        cwd: repositoryRoot,
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let errors = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n')[0];
      if (output.includes('\n')) {
        resolve({ child, ready: JSON.parse(line) as Served['ready'] });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${errors}`)));
  });

/** Everything an agent could observe of the episode: every supplier page, every item, one supplier's contacts. */
const observe = async (base: string, supplierId: string) => ({
  suppliers: await json(await fetch(`${base}/suppliers?limit=200`)),
  items: await json(await fetch(`${base}/items?per_page=100`)),
  orders: await json(await fetch(`${base}/purchase-orders?limit=200`)),
  contacts: await json(await fetch(`${base}/suppliers/${supplierId}/contacts`)),
});

/** Real: the built CLI serving over HTTP, PostgreSQL, SIGKILL. Mocked: nothing. */
describe('mirror serve after a crash', () => {
  it('rebuilds the episode exactly after SIGKILL mid-episode', async () => {
    const database = await createTestDatabase();
    const first = await serve(database.url);
    const base = first.ready.services[0].baseUrl;
    try {
      const supplier = await json(
        await fetch(`${base}/suppliers`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Crash Test AG', country: 'CH' }),
        }),
      );
      await fetch(`${base}/suppliers/${supplier.id}/contacts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rita', email: 'rita@crash.example' }),
      });
      const world = await json(await fetch(`${base}/suppliers?limit=1`));
      await fetch(`${base}/suppliers/${world.data[0].id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Renamed', country: 'AT' }),
      });
      await fetch(`${base}/purchase-orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ supplier_id: supplier.id, cost_centre: 'CC-1', lines: [{ item_id: 'x', quantity: 2 }] }),
      });
      const before = await observe(base, supplier.id);

      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('close', resolve));

      const second = await serve(database.url);
      try {
        expect(second.ready.episodeId).toBe(first.ready.episodeId);
        const after = await observe(second.ready.services[0].baseUrl, supplier.id);
        expect(after).toEqual(before);
        expect(after.contacts.data).toHaveLength(1);
      } finally {
        second.child.kill('SIGTERM');
        await new Promise((resolve) => second.child.once('close', resolve));
      }
    } finally {
      first.child.kill('SIGKILL');
      await database.drop();
    }
  });
});
