import { createHash } from 'node:crypto';
import * as path from 'node:path';

import { Client } from 'pg';

import { placeCredential } from '@libs/openapi-schemas';
import { repositoryRoot } from '@test/support/cli-runner';
import { serve } from '@test/support/serve-runner';
import { createTestDatabase } from '@test/support/test-services';

const fixture = (file: string): string => path.join(repositoryRoot, 'test', 'fixtures', 'fidelity', 'security', file);

/** Real: the built CLI serving a lone spec over HTTP, PostgreSQL. Mocked: nothing. */
describe('mirror serve of a lone spec that declares security', () => {
  it.each([
    ['bearer-global.yaml', '/tickets', 'Bearer realm='],
    ['apikey-query.yaml', '/forecasts', 'ApiKey realm='],
  ])(
    '%s: refuses a call without the credential, and answers one with the credential it printed',
    async (file, route, challenge) => {
      const database = await createTestDatabase();
      const served = await serve(database.url, [fixture(file)]);
      try {
        const [service] = served.ready.services;
        expect(service.agentToken).toMatch(/^mirror_[0-9a-f]{32}_agent$/);
        expect(service.credential?.length).toBeGreaterThan(0);
        const missing = await fetch(`${service.baseUrl}${route}`);
        expect(missing.status).toBe(401);
        expect(missing.headers.get('www-authenticate')).toContain(challenge);
        const forged = placeCredential(service.credential ?? [], `${service.agentToken ?? ''}x`);
        const forgedQuery = new URLSearchParams(forged.query).toString();
        const refused = await fetch(`${service.baseUrl}${route}${forgedQuery ? `?${forgedQuery}` : ''}`, {
          headers: forged.headers,
        });
        expect(refused.status).toBe(401);
        const { headers, query } = placeCredential(service.credential ?? [], service.agentToken ?? '');
        const search = new URLSearchParams(query).toString();
        const answered = await fetch(`${service.baseUrl}${route}${search ? `?${search}` : ''}`, { headers });
        expect(answered.status).toBe(200);
        expect(Array.isArray(await answered.json())).toBe(true);
        // The token printed for whoever ran the command is on the evidence trail as theirs (its fingerprint, never it).
        const sql = new Client({ connectionString: database.url });
        await sql.connect();
        try {
          const { rows } = await sql.query<{ actor_kind: string; details: Record<string, unknown> }>(
            `SELECT actor_kind, details FROM audit_entries WHERE action = 'episode.credential_issued' AND subject_id = $1`,
            [served.ready.episodeId],
          );
          const fingerprint = createHash('sha256')
            .update(service.agentToken ?? '')
            .digest('hex')
            .slice(0, 16);
          expect(rows).toEqual([
            expect.objectContaining({
              actor_kind: 'engineer',
              details: expect.objectContaining({ service: service.name, fingerprint }),
            }),
          ]);
          expect(JSON.stringify(rows)).not.toContain(service.agentToken);
        } finally {
          await sql.end();
        }
      } finally {
        served.child.kill('SIGTERM');
        await new Promise((resolve) => served.child.once('close', resolve));
        await database.drop();
      }
    },
  );
});
