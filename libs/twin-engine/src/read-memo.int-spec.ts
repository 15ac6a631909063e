import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { ingestStack } from '@libs/stack-ingestion';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { TwinRequest, TwinResponse } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

/** Real: the example stack's twin and an episode; the store is in memory because durability is not the subject. */
describe('reads between writes', () => {
  let engine: TwinEngine;
  let episode: Episode;
  const service = 'procurement';

  const request = (method: string, pathAndQuery: string, headers: Record<string, string> = {}, body?: unknown) => {
    const [pathOnly, search = ''] = pathAndQuery.split('?');
    const twinRequest: TwinRequest = {
      method,
      path: pathOnly,
      query: new URLSearchParams(search),
      search,
      // The spec declares bearer auth: the agent's token unless a call presents another.
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token()}`, ...headers },
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    };
    return episode.handle(service, twinRequest, `http://twin${pathOnly}`);
  };
  const token = (principal?: string): string =>
    (principal ? episode.tokenFor(service, principal) : episode.agentTokenFor(service)) ?? '';
  const bodyOf = (response: TwinResponse): unknown => (response.text ? JSON.parse(response.text) : response.body);

  beforeAll(async () => {
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(repositoryRoot, 'examples', 'acme-procurement'),
    });
    engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 9 });
  });

  it('answers a repeated read with the same answer until a write, then with the new state', async () => {
    const first = await request('GET', '/suppliers?limit=5');
    const again = await request('GET', '/suppliers?limit=5');
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);

    const created = await request('POST', '/suppliers', {}, { name: 'Memo Ltd', country: 'GB' });
    expect(created.status).toBe(201);
    const { id } = bodyOf(created) as { id: string };

    const afterWrite = await request('GET', `/suppliers/${id}`);
    expect(afterWrite.status).toBe(200);
    expect(bodyOf(afterWrite)).toMatchObject({ name: 'Memo Ltd' });
    const changed = await request('PATCH', `/suppliers/${id}`, {}, { name: 'Memo Two Ltd', country: 'GB' });
    expect(changed.status).toBe(200);
    expect(bodyOf(await request('GET', `/suppliers/${id}`))).toMatchObject({ name: 'Memo Two Ltd', country: 'GB' });
  });

  it('keeps answers apart by query, credentials and base URL', async () => {
    const five = await request('GET', '/suppliers?limit=5');
    const two = await request('GET', '/suppliers?limit=2');
    expect(two).not.toBe(five);
    const asAlice = await request('GET', '/suppliers?limit=5', { authorization: `Bearer ${token('alice')}` });
    const asBob = await request('GET', '/suppliers?limit=5', { authorization: `Bearer ${token('bob')}` });
    expect([asAlice.status, asBob.status]).toEqual([200, 200]);
    expect(asAlice).not.toBe(asBob);
    expect(await request('GET', '/suppliers?limit=5', { authorization: `Bearer ${token('alice')}` })).toBe(asAlice);
  });

  it('does not memoize while faults are on, because each faulty read draws its own fate', async () => {
    const faulty = await engine.fork('test', episode.id);
    faulty.configureFaults({ services: { [service]: { errorRate: 0.5 } } });
    const statuses = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const response = await faulty.handle(
        service,
        {
          method: 'GET',
          path: '/suppliers',
          query: new URLSearchParams(),
          headers: { authorization: `Bearer ${faulty.agentTokenFor(service) ?? ''}` },
        },
        'http://twin/suppliers',
      );
      statuses.add(response.status);
    }
    expect([...statuses].sort()).toEqual([200, 503]);
  });
});
