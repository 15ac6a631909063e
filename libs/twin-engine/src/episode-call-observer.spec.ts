import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';

import type { ObservedCall } from './episode-events';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { TwinRequest } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

const spec = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  'test',
  'fixtures',
  'fidelity',
  'security',
  'bearer-global.yaml',
);

const request = (init: Partial<TwinRequest> & { path: string }): TwinRequest => ({
  method: 'GET',
  query: new URLSearchParams(init.search ?? ''),
  headers: {},
  ...init,
});

/**
 * Real: ingestion of a lone spec, the twin engine and its episodes. The store is the in-memory one; the observer is
 * an array. Every call that leaves no event reaches the observer with its caller; every call that does is in the log
 * and only there.
 */
describe('calls that leave no event', () => {
  it('are observed, reads and remembered reads alike, with the caller, the operation and the log position', async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: spec });
    const observed: ObservedCall[] = [];
    const store = new InMemoryEpisodeStore();
    const engine = new TwinEngine(
      store,
      new StaticStackSource(model),
      undefined,
      {},
      { observe: (c) => observed.push(c) },
    );
    const episode = await engine.createEpisode({ tenantId: 'tenant-a', stackVersion: version, seed: 4 });
    const service = model.services[0].name;
    const token = episode.agentTokenFor(service) as string;
    const auth = { authorization: `Bearer ${token}` };
    const call = (init: Partial<TwinRequest> & { path: string }) =>
      episode.handle(service, request(init), `http://twin${init.path}`);
    const json = (body: unknown) => ({
      method: 'POST',
      body: Buffer.from(JSON.stringify(body)),
      headers: { ...auth, 'content-type': 'application/json' },
    });

    expect((await call({ path: '/tickets', search: 'limit=2', headers: auth })).status).toBe(200);
    // The same read again is answered from memory: still a call the agent made.
    expect((await call({ path: '/tickets', search: 'limit=2', headers: auth })).status).toBe(200);
    expect((await call({ path: '/tickets', ...json({ subject: 'printer' }) })).status).toBe(201);
    expect((await call({ path: '/tickets', ...json({ topic: 'no subject' }) })).status).toBe(400);
    expect((await call({ path: '/tickets' })).status).toBe(401);
    expect((await call({ path: '/nowhere', headers: auth })).status).toBe(404);
    expect((await episode.handle('no-such-service', request({ path: '/x' }), 'http://twin/x')).status).toBe(404);

    const logged = await store.events('tenant-a', episode.id);
    expect(logged.length).toBeGreaterThan(0);
    const afterWrite = logged[logged.length - 1].seq;
    const base = { tenantId: 'tenant-a', episodeId: episode.id, service, at: expect.any(String) as string };
    expect(observed).toEqual([
      {
        ...base,
        afterSeq: 0,
        method: 'GET',
        path: '/tickets?limit=2',
        operationId: 'listTickets',
        status: 200,
        actor: 'agent',
      },
      {
        ...base,
        afterSeq: 0,
        method: 'GET',
        path: '/tickets?limit=2',
        operationId: 'listTickets',
        status: 200,
        actor: 'agent',
      },
      {
        ...base,
        afterSeq: afterWrite,
        method: 'POST',
        path: '/tickets',
        operationId: 'createTicket',
        status: 400,
        actor: 'agent',
      },
      { ...base, afterSeq: afterWrite, method: 'GET', path: '/tickets', operationId: 'listTickets', status: 401 },
      { ...base, afterSeq: afterWrite, method: 'GET', path: '/nowhere', status: 404 },
      { ...base, service: 'no-such-service', afterSeq: afterWrite, method: 'GET', path: '/x', status: 404 },
    ]);

    // A token of nobody's making is an attempt on record: in the log, and not observed twice.
    expect((await call({ path: '/tickets', headers: { authorization: 'Bearer agent' } })).status).toBe(401);
    expect(await store.events('tenant-a', episode.id)).toHaveLength(logged.length + 1);
    expect(observed).toHaveLength(6);
  });
});
