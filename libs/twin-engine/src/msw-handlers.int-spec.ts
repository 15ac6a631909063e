import * as path from 'node:path';

import { setupServer } from 'msw/node';

import { repositoryRoot } from '@test/support/cli-runner';
import { ingestStack } from '@libs/stack-ingestion';

import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { episodeHandlers } from './msw-handlers';
import { StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Real: MSW's setupServer intercepting fetch in this process, the twin engine. Mocked: nothing — the point is that
 * an agent's own code calls the production base URL unchanged and meets the twin.
 */
describe(episodeHandlers.name, () => {
  it('answers calls to the production base URL from an episode, through one routed handler per operation', async () => {
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(repositoryRoot, 'examples', 'acme-procurement'),
    });
    const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 4 });
    const server = setupServer(...episodeHandlers(episode));
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const base = 'https://erp.acme.example/api/v1';
      // The spec declares bearer auth: calls present the episode's token, as the client's own code would.
      const authorization = `Bearer ${episode.agentTokenFor('procurement') ?? ''}`;
      const created = await fetch(`${base}/suppliers`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'In-Process Ltd', country: 'GB' }),
      });
      expect(created.status).toBe(201);
      const supplier = (await created.json()) as { id: string };
      const fetched = await fetch(`${base}/suppliers/${supplier.id}`, { headers: { authorization } });
      await expect(fetched.json()).resolves.toMatchObject({ name: 'In-Process Ltd', country: 'GB' });
      // The create, logged once as its record and as the service's domain event; the read logged nothing.
      expect(episode.state.seq).toBe(2);

      const unknown = await fetch(`${base}/not-an-operation`);
      expect(unknown.status).toBe(404);
      await expect(fetch('https://elsewhere.example/')).rejects.toThrow();
    } finally {
      server.close();
    }
  });
});
