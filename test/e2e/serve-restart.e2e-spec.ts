import { Client } from 'pg';

import { json } from '@test/support/gateway-harness';
import { serve } from '@test/support/serve-runner';
import { createTestDatabase } from '@test/support/test-services';

/** Everything an agent could observe of the episode: every supplier page, every item, one supplier's contacts. */
const observe = async (base: string, supplierId: string, headers: Record<string, string>) => ({
  suppliers: await json(await fetch(`${base}/suppliers?limit=200`, { headers })),
  items: await json(await fetch(`${base}/items?per_page=100`, { headers })),
  orders: await json(await fetch(`${base}/purchase-orders?limit=200`, { headers })),
  contacts: await json(await fetch(`${base}/suppliers/${supplierId}/contacts`, { headers })),
});

/** Real: the built CLI serving over HTTP, PostgreSQL, SIGKILL. Mocked: nothing. */
describe('mirror serve after a crash', () => {
  it('rebuilds the episode exactly after SIGKILL mid-episode', async () => {
    const database = await createTestDatabase();
    const first = await serve(database.url, ['examples/acme-procurement', '--seed', '9']);
    const base = first.ready.services[0].baseUrl;
    // The spec declares bearer auth: every call presents the token `serve` printed (the same after the restart).
    const auth = { authorization: `Bearer ${first.ready.services[0].agentToken ?? ''}` };
    try {
      const supplier = await json(
        await fetch(`${base}/suppliers`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Crash Test AG', country: 'CH' }),
        }),
      );
      await fetch(`${base}/suppliers/${supplier.id}/contacts`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rita', email: 'rita@crash.example' }),
      });
      const world = await json(await fetch(`${base}/suppliers?limit=1`, { headers: auth }));
      await fetch(`${base}/suppliers/${world.data[0].id}`, {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Renamed', country: 'AT' }),
      });
      await fetch(`${base}/purchase-orders`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ supplier_id: supplier.id, cost_centre: 'CC-1', lines: [{ item_id: 'x', quantity: 2 }] }),
      });
      const before = await observe(base, supplier.id, auth);

      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('close', resolve));

      const second = await serve(database.url, ['examples/acme-procurement', '--seed', '9']);
      try {
        expect(second.ready.episodeId).toBe(first.ready.episodeId);
        const after = await observe(second.ready.services[0].baseUrl, supplier.id, auth);
        expect(after).toEqual(before);
        expect(after.contacts.data).toHaveLength(1);
      } finally {
        second.child.kill('SIGTERM');
        await new Promise((resolve) => second.child.once('close', resolve));
      }
      // The reads it answered are recorded beside the log (written out as it stopped), chained in the order answered.
      const sql = new Client({ connectionString: database.url });
      await sql.connect();
      try {
        const { rows } = await sql.query<{ n: number; path: string }>(
          `SELECT n, path FROM episode_calls WHERE episode_id = $1 AND n IS NOT NULL ORDER BY n`,
          [second.ready.episodeId],
        );
        expect(rows.map((r) => r.n)).toEqual(rows.map((_, i) => i + 1));
        expect(rows.slice(-4).map((r) => r.path)).toEqual([
          '/suppliers?limit=200',
          '/items?per_page=100',
          '/purchase-orders?limit=200',
          `/suppliers/${supplier.id}/contacts`,
        ]);
      } finally {
        await sql.end();
      }
    } finally {
      first.child.kill('SIGKILL');
      await database.drop();
    }
  });
});
