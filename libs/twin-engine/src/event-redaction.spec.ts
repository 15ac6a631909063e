import * as path from 'node:path';

import { isReservedEmail } from '@libs/redaction';
import { ingestStack, StackModel } from '@libs/stack-ingestion';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { TwinRequest, TwinResponse } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Real: the example procurement stack's twins, world and episodes, and the engine's rebuild from the log; the store is
 * in memory (what PostgreSQL keeps of an event is its JSON, the same as here).
 */
describe('episode writes are redacted before they are stored', () => {
  const service = 'procurement';
  let model: StackModel;
  let version: string;

  beforeAll(async () => {
    ({ model, version } = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../examples/acme-procurement'),
    }));
  });

  const call = async (episode: Episode, method: string, target: string, body?: unknown): Promise<unknown> => {
    const request: TwinRequest = {
      method,
      path: target,
      query: new URLSearchParams(),
      search: '',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${episode.agentTokenFor(service) ?? ''}` },
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    };
    const response: TwinResponse = await episode.handle(service, request, `http://twin${target}`);
    expect(response.status).toBeLessThan(300);
    return response.text ? JSON.parse(response.text) : response.body;
  };

  const card = '4539 1488 0343 6467';
  const token = `ghp_${'A1b2C3d4E5'.repeat(3)}z9Y8x7`;

  it('stores markers for an agent’s planted card, token and address, keeps the world’s values, and rebuilds the same', async () => {
    const store = new InMemoryEpisodeStore();
    const engine = new TwinEngine(store, new StaticStackSource(model), new Map());
    const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 3 });
    const contacts = [...episode.state.world.tables.entries()].find(([key]) => key.endsWith('contacts'));
    const [contactId, worldContact] = [...contacts![1].records.entries()][0] as [string, { email: string }];
    const supplierId = contacts![1].parentOf.get(contactId);
    // A real-looking address of the world's (not a reserved domain), so it is the allow-set that keeps it.
    expect(isReservedEmail(worldContact.email)).toBe(false);

    await call(episode, 'POST', `/suppliers/${supplierId}/contacts`, { name: 'Known', email: worldContact.email });
    await call(episode, 'POST', `/suppliers/${supplierId}/contacts`, {
      name: `card ${card}, token ${token}`,
      email: 'someone.real@gmail.com',
      phone: '+44 20 7946 0958',
    });

    const stored = JSON.stringify(await store.events('test', episode.id));
    expect(stored).not.toContain('4539');
    expect(stored).not.toContain('ghp_');
    expect(stored).not.toContain('someone.real');
    expect(stored).not.toContain('7946');
    expect(stored).toContain('card [redacted:card], token [redacted:secret]');
    expect(stored).toContain(JSON.stringify(worldContact.email));
    const created = (await store.events('test', episode.id)).map((e) => e.event).filter((e) => e.redactions);
    expect(created[0].redactions?.map(({ kind, place }) => [kind, place])).toEqual(
      expect.arrayContaining([
        ['card', '/record/name'],
        ['secret', '/record/name'],
        ['email', '/record/email'],
        ['phone', '/record/phone'],
      ]),
    );

    // What the episode holds is what its log holds: a rebuilt one is the same.
    const rebuilt = await new TwinEngine(store, new StaticStackSource(model), new Map()).episode('test', episode.id);
    expect(rebuilt.state.fingerprint()).toEqual(episode.state.fingerprint());
  });

  it('keeps what the twin filled in for a create, so a read answers what the create did, and judges what was sent', async () => {
    const store = new InMemoryEpisodeStore();
    const engine = new TwinEngine(store, new StaticStackSource(model), new Map());
    const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 3 });
    const contacts = [...episode.state.world.tables.entries()].find(([key]) => key.endsWith('contacts'));
    const supplierId = contacts![1].parentOf.get([...contacts![1].records.keys()][0]);
    const made: { id: string; phone?: string; email: string }[] = [];
    for (let n = 0; n < 8; n++) {
      // No phone sent: the twin fills one in. The address is the caller's own, real-looking.
      made.push(
        (await call(episode, 'POST', `/suppliers/${supplierId}/contacts`, {
          name: `Filled ${n}`,
          email: `caller.${n}@gmail.com`,
        })) as { id: string; phone?: string; email: string },
      );
    }
    const listed = (await call(episode, 'GET', `/suppliers/${supplierId}/contacts`)) as { data: { id: string }[] };
    for (const contact of made) {
      expect(typeof contact.phone).toBe('string');
      expect(listed.data.find((c) => c.id === contact.id)).toEqual({ ...contact, email: 'redacted-email@gmail.com' });
    }
    const stored = JSON.stringify(await store.events('test', episode.id));
    expect(stored).not.toContain('[redacted:phone]');
    expect(stored).not.toContain('caller.');
  });
});
