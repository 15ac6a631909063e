import * as path from 'node:path';

import { requestEpisode } from '@test/support/twin-requests';
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

const caller =
  (episode: Episode) =>
  async (method: string, target: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await requestEpisode(episode, method, target, body, headers);
    return response as typeof response & { body: Record<string, unknown> };
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
      const told = (await engine.events('test', episode.id)).map((e) => e.event);
      expect(told).toContainEqual(expect.objectContaining({ type: 'domain', name: expect.stringMatching(/updated$/) }));
    });

    it('answers 404 to an update of a message that does not exist', async () => {
      expect((await call('POST', `/Accounts/${account}/Messages/nothing.json`, { body: 'x' })).status).toBe(404);
    });
  });
});

describe('client-assigned ids and creates without a response body', () => {
  let call: ReturnType<typeof caller>;

  beforeAll(async () => {
    call = caller((await episodeOf('client-ids.yaml')).episode);
  });

  it('stores a bodiless create under the name the client gave, says where in Location, and refuses the name twice', async () => {
    const made = await call('POST', '/buckets', { name: 'reports', region: 'eu' });
    expect(made.status).toBe(201);
    expect(made.body).toBeUndefined();
    expect(made.headers.location).toBe('http://twin/buckets/reports');
    const read = await call('GET', '/buckets/reports');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ name: 'reports', region: 'eu' });
    const again = await call('POST', '/buckets', { name: 'reports' });
    expect(again.status).toBe(409);
    expect((await call('GET', '/buckets/reports')).body.region).toBe('eu');
  });

  it('keeps a bodiless create with a server id: the listing finds it', async () => {
    const made = await call('POST', '/notes', { text: 'remember the milk' });
    expect(made.status).toBe(201);
    const listed = (await call('GET', '/notes')).body as unknown as { id: string; text: string }[];
    const note = listed.find((n) => n.text === 'remember the milk');
    expect(note).toBeDefined();
    expect((await call('GET', `/notes/${note?.id}`)).body).toMatchObject({ text: 'remember the milk' });
  });

  it('names a record by its metadata.name, Kubernetes-style', async () => {
    const made = await call('POST', '/api/v1/configmaps', { metadata: { name: 'settings' }, data: { mode: 'fast' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
    expect(made.body).not.toHaveProperty('id');
    const read = await call('GET', '/api/v1/configmaps/settings');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
    expect((await call('POST', '/api/v1/configmaps', { metadata: { name: 'settings' } })).status).toBe(409);
  });
});

describe('records behind an anyOf with a deleted variant, and bulk wrappers', () => {
  let call: ReturnType<typeof caller>;

  beforeAll(async () => {
    call = caller((await episodeOf('record-variants.yaml')).episode);
  });

  it("keeps the client's fields of a customer whose read answers customer | deleted_customer", async () => {
    const made = await call('POST', '/v1/customers', { email: 'ada@example.com', name: 'Ada', balance: 12 });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ object: 'customer', email: 'ada@example.com', name: 'Ada', balance: 12 });
    const read = await call('GET', `/v1/customers/${String(made.body.id)}`);
    expect(read.body).toMatchObject({ id: made.body.id, email: 'ada@example.com', name: 'Ada', balance: 12 });
    expect(read.body.deleted).toBeUndefined();
    const world = (await call('GET', '/v1/customers')).body.data as Record<string, unknown>[];
    expect(world.every((customer) => customer.deleted === undefined && 'created' in customer)).toBe(true);
    expect((await call('DELETE', `/v1/customers/${String(made.body.id)}`)).body).toMatchObject({ deleted: true });
    expect((await call('GET', `/v1/customers/${String(made.body.id)}`)).status).toBe(404);
  });

  it('reads {"Contacts": [...]} as a list of records, in creates, reads and updates', async () => {
    const made = await call('POST', '/Contacts', {
      Contacts: [
        { Name: 'Acme', EmailAddress: 'ap@acme.example' },
        { Name: 'Globex', EmailAddress: 'ap@globex.example' },
      ],
    });
    expect(made.status).toBe(200);
    const contacts = made.body.Contacts as Record<string, unknown>[];
    expect(contacts).toHaveLength(2);
    expect(contacts.map((c) => c.Name)).toEqual(['Acme', 'Globex']);
    expect(made.body).not.toHaveProperty('id');
    const [acme] = contacts;
    const read = await call('GET', `/Contacts/${String(acme.ContactID)}`);
    expect(read.body).toEqual({ Contacts: [expect.objectContaining({ ContactID: acme.ContactID, Name: 'Acme' })] });
    const changed = await call('POST', `/Contacts/${String(acme.ContactID)}`, { Contacts: [{ Name: 'Acme Ltd' }] });
    expect(changed.body.Contacts).toEqual([expect.objectContaining({ ContactID: acme.ContactID, Name: 'Acme Ltd' })]);
    const listed = (await call('GET', '/Contacts')).body.Contacts as Record<string, unknown>[];
    expect(listed.filter((c) => c.EmailAddress === 'ap@globex.example')).toHaveLength(1);
  });
});

describe('nested resources scoped to their parent path', () => {
  let call: ReturnType<typeof caller>;

  beforeAll(async () => {
    call = caller((await episodeOf('nested-scopes.yaml')).episode);
  });

  it("lists, reads and changes a repository's issues only under that repository", async () => {
    const made = await call('POST', '/repos/octo/hello/issues', { title: 'crash on start' });
    expect(made.status).toBe(201);
    const number = String(made.body.number);
    const titles = async (repo: string) =>
      ((await call('GET', `/repos/${repo}/issues`)).body as unknown as { title: string }[]).map((i) => i.title);
    expect(await titles('octo/hello')).toContain('crash on start');
    expect(await titles('octo/other')).not.toContain('crash on start');
    expect(await titles('someone/hello')).not.toContain('crash on start');
    expect((await call('GET', `/repos/octo/hello/issues/${number}`)).status).toBe(200);
    expect((await call('GET', `/repos/octo/other/issues/${number}`)).status).toBe(404);
    expect((await call('PATCH', `/repos/octo/other/issues/${number}`, { title: 'x' })).status).toBe(404);
  });

  it("deals the world's issues out over repositories, the same way for the same seed", async () => {
    const numbers = async (repo: string) =>
      ((await call('GET', `/repos/${repo}/issues`)).body as unknown as { number: number }[]).map((i) => i.number);
    const repos = ['a/one', 'a/two', 'b/one', 'b/two', 'c/three'];
    const seen = await Promise.all(repos.map(numbers));
    expect(seen.every((list) => list.length > 0)).toBe(true);
    expect(new Set(seen.map((list) => list.join(','))).size).toBeGreaterThan(1);
    expect(await numbers('a/one')).toEqual(seen[0]);
    const other = caller((await episodeOf('nested-scopes.yaml')).episode);
    expect(
      ((await other('GET', '/repos/a/one/issues')).body as unknown as { number: number }[]).map((i) => i.number),
    ).toEqual(seen[0]);
  });
});

describe('contents of a record listed by the field that names their container', () => {
  let call: ReturnType<typeof caller>;
  let root: string;

  beforeAll(async () => {
    call = caller((await episodeOf('container-items.yaml')).episode);
    root = String(((await call('GET', '/folders')).body.entries as { id: string }[])[0].id);
  });

  const itemsOf = async (folder: string, query = '') => {
    const listed = await call('GET', `/folders/${folder}/items${query}`);
    expect(listed.status).toBe(200);
    return listed.body as { entries: { id: string; type: string; parent?: { id: string } }[]; total_count?: number };
  };

  it("lists the folders and documents made in a folder there, by their parent's id, and nowhere else", async () => {
    const inside = (await call('POST', '/folders', { name: 'Contracts', parent: { id: root, type: 'folder' } })).body;
    const memo = (await call('POST', '/documents', { title: 'Memo', parent: { id: root, type: 'folder' } })).body;
    const deeper = (
      await call('POST', '/documents', { title: 'Lease', parent: { id: String(inside.id), type: 'folder' } })
    ).body;
    const top = await itemsOf(root);
    expect(top.entries.map((e) => e.id)).toEqual(expect.arrayContaining([inside.id, memo.id]));
    expect(top.entries.map((e) => e.id)).not.toContain(deeper.id);
    expect(top.entries.every((e) => e.parent?.id === root)).toBe(true);
    expect(top.entries.find((e) => e.id === memo.id)).toMatchObject({ type: 'document', title: 'Memo' });
    expect((await itemsOf(String(inside.id))).entries).toEqual([
      expect.objectContaining({ id: deeper.id, title: 'Lease' }),
    ]);
    expect(top.total_count).toBe(top.entries.length);
  });

  it('follows a move: an update of the parent field changes which folder lists the record', async () => {
    const target = (await call('POST', '/folders', { name: 'Archive', parent: { id: root, type: 'folder' } })).body;
    const note = (await call('POST', '/documents', { title: 'Note', parent: { id: root, type: 'folder' } })).body;
    const moved = await call('PUT', `/documents/${String(note.id)}`, {
      parent: { id: String(target.id), type: 'folder' },
    });
    expect(moved.status).toBe(200);
    expect((await itemsOf(String(target.id))).entries.map((e) => e.id)).toEqual([note.id]);
    expect((await itemsOf(root)).entries.map((e) => e.id)).not.toContain(note.id);
  });

  it('pages the contents as the operation pages, and answers 404 for a folder that does not exist', async () => {
    const all = (await itemsOf(root)).entries.map((e) => e.id);
    expect(all.length).toBeGreaterThan(1);
    const second = await itemsOf(root, '?offset=1&limit=1');
    expect(second.entries.map((e) => e.id)).toEqual([all[1]]);
    expect(second.total_count).toBe(all.length);
    const missing = await call('GET', '/folders/no-such-folder/items');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: expect.stringContaining('no-such-folder') });
  });

  it('lists what clients put in a container the twin holds no record of (a root), and only that', async () => {
    expect((await call('GET', '/folders/top')).status).toBe(404);
    expect((await call('GET', '/folders/top/items')).status).toBe(404);
    const first = (await call('POST', '/documents', { title: 'First', parent: { id: 'top', type: 'folder' } })).body;
    expect((await itemsOf('top')).entries.map((e) => e.id)).toEqual([first.id]);
  });
});
