import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { ingestStack } from '@libs/stack-ingestion';

import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { StaticStackSource, TwinEngine } from './twin-engine';

/** Real: the example stack's twin, an episode, its event log (in memory), a rebuild from that log. */
describe('writes with an Idempotency-Key', () => {
  it('are made once: a retry gets the first answer, changes nothing, and still does after a rebuild', async () => {
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(repositoryRoot, 'examples', 'acme-procurement'),
    });
    const store = new InMemoryEpisodeStore();
    const engine = new TwinEngine(store, new StaticStackSource(model));
    const episode = await engine.createEpisode({ tenantId: 't', stackVersion: version, seed: 2 });
    // The spec declares bearer auth: the caller presents the episode's token (a rebuilt episode takes the same one).
    const authorization = `Bearer ${episode.agentTokenFor('procurement') ?? ''}`;
    const create = (key: string | undefined, name: string) =>
      episode.handle(
        'procurement',
        {
          method: 'POST',
          path: '/suppliers',
          query: new URLSearchParams(),
          headers: {
            authorization,
            'content-type': 'application/json',
            ...(key ? { 'idempotency-key': key } : {}),
          },
          body: Buffer.from(JSON.stringify({ name, country: 'DE' })),
        },
        'http://twin/suppliers',
      );
    const first = await create('persona:reply:1', 'Once GmbH');
    const seq = episode.state.seq;
    const again = await create('persona:reply:1', 'Once GmbH');
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(episode.state.seq).toBe(seq);
    const other = await create('persona:reply:2', 'Twice GmbH');
    expect((other.body as { id: string }).id).not.toBe((first.body as { id: string }).id);

    const beforeBodiless = episode.state.seq;
    // The key names a request, not any call to the path: the same key without the required body is refused (with the
    // 422 the operation declares for a refusal), not answered with the 201 of the request that used it.
    const bodiless = await episode.handle(
      'procurement',
      {
        method: 'POST',
        path: '/suppliers',
        query: new URLSearchParams(),
        headers: { authorization, 'idempotency-key': 'persona:reply:1' },
      },
      'http://twin/suppliers',
    );
    expect(bodiless.status).toBe(422);
    expect(JSON.stringify(bodiless.body)).toContain('body');
    expect(episode.state.seq).toBe(beforeBodiless);

    const rebuilt = await new TwinEngine(store, new StaticStackSource(model)).episode('t', episode.id);
    const afterRebuild = await rebuilt.handle(
      'procurement',
      {
        method: 'POST',
        path: '/suppliers',
        query: new URLSearchParams(),
        headers: { authorization, 'content-type': 'application/json', 'idempotency-key': 'persona:reply:1' },
        body: Buffer.from(JSON.stringify({ name: 'Once GmbH', country: 'DE' })),
      },
      'http://twin/suppliers',
    );
    expect(afterRebuild.body).toEqual(first.body);
    expect(rebuilt.state.seq).toBe(episode.state.seq);

    // The key again for another request (another path): refused, with a status the operation declares for a
    // refusal when it has one (none here: 422), not the first answer.
    const supplierId = (first.body as { id: string }).id;
    const reused = await episode.handle(
      'procurement',
      {
        method: 'POST',
        path: `/suppliers/${supplierId}/contacts`,
        query: new URLSearchParams(),
        headers: { authorization, 'content-type': 'application/json', 'idempotency-key': 'persona:reply:1' },
        body: Buffer.from(JSON.stringify({ name: 'Ann Other', email: 'ann@example.com' })),
      },
      `http://twin/suppliers/${supplierId}/contacts`,
    );
    const declared = model.services
      .find((s) => s.name === 'procurement')
      ?.operations.find((o) => o.method === 'post' && o.path === '/suppliers/{supplierId}/contacts')
      ?.responses.map((r) => r.status);
    expect(reused.status).toBe(Number(['422', '409', '400'].find((status) => declared?.includes(status)) ?? '422'));
  });
});
