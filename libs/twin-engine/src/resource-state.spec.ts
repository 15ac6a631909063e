import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Twins keep state on the shapes real specs use. Each spec under test/fixtures/fidelity/shapes shows one shape; real:
 * ingestion, world synthesis, the twin engine (episodes live in memory).
 */
const fixture = (file: string): string => path.join(__dirname, '../../../test/fixtures/fidelity/shapes', file);

const episodeOf = async (file: string, seed = 4): Promise<{ engine: TwinEngine; episode: Episode }> => {
  const { model, version } = await ingestStack({ kind: 'path', path: fixture(file) });
  const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
  const episode = await engine.createEpisode({
    tenantId: 'test',
    stackVersion: version,
    seed,
    sizes: { recordsPerResource: 4, childrenPerParent: 2 },
  });
  return { engine, episode };
};

const caller = (episode: Episode) => {
  const service = [...episode.twin.services.keys()][0];
  return async (method: string, target: string, body?: unknown, headers: Record<string, string> = {}) => {
    const [pathname, query] = target.split('?');
    const response = await episode.handle(
      service,
      {
        method,
        path: pathname,
        query: new URLSearchParams(query ?? ''),
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
      },
      `http://twin${pathname}`,
    );
    return response as typeof response & { body: Record<string, unknown> };
  };
};

describe('resource state on real shapes', () => {
  describe('item paths with a format suffix, and POST to the item as its update', () => {
    let episode: Episode;
    let engine: TwinEngine;
    let call: ReturnType<typeof caller>;
    let account: string;

    beforeAll(async () => {
      ({ episode, engine } = await episodeOf('suffix-paths.yaml'));
      call = caller(episode);
      const accounts = await call('GET', '/Accounts.json');
      account = String((accounts.body.accounts as { sid: string }[])[0].sid);
    });

    it('creates, reads, updates and deletes a message under its account', async () => {
      const made = await call('POST', `/Accounts/${account}/Messages.json`, { body: 'hello', to: '+15550100' });
      expect(made.status).toBe(201);
      const sid = String(made.body.sid);
      const read = await call('GET', `/Accounts/${account}/Messages/${sid}.json`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ sid, body: 'hello', to: '+15550100' });
      const changed = await call('POST', `/Accounts/${account}/Messages/${sid}.json`, { body: 'edited' });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ sid, body: 'edited', to: '+15550100' });
      expect((await call('GET', `/Accounts/${account}/Messages/${sid}.json`)).body.body).toBe('edited');
      expect((await call('DELETE', `/Accounts/${account}/Messages/${sid}.json`)).status).toBe(204);
      expect((await call('GET', `/Accounts/${account}/Messages/${sid}.json`)).status).toBe(404);
      const told = (await engine.events(episode.id)).map((e) => e.event);
      expect(told).toContainEqual(expect.objectContaining({ type: 'domain', name: expect.stringMatching(/updated$/) }));
    });

    it('answers 404 to an update of a message that does not exist', async () => {
      expect((await call('POST', `/Accounts/${account}/Messages/nothing.json`, { body: 'x' })).status).toBe(404);
    });
  });
});
