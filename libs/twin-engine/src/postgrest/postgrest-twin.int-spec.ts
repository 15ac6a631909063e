import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Server } from 'node:http';

import { PostgrestClient } from '@supabase/postgrest-js';

import { ingestStack, StackModel } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { testOperatorKey } from '@test/support/operator-key';

import { createGatewayServer } from '../http/gateway-server';
import { Episode } from '../episode';
import { InMemoryEpisodeStore } from '../in-memory-episode-store';
import { StaticStackSource, TwinEngine } from '../twin-engine';
import { postgrestToken } from './postgrest-auth';

type Row = Record<string, unknown>;

/**
 * Real: ingestion of a bundle whose only service is its DDL, world synthesis, the twin engine, the HTTP gateway, and
 * `@supabase/postgrest-js` unmodified as the client. The event store is the in-memory one (the PostgreSQL store has
 * its own tests); nothing of Mirror's is mocked.
 */
describe('a data twin through @supabase/postgrest-js', () => {
  let server: Server;
  let engine: TwinEngine;
  let episode: Episode;
  let other: Episode;
  let model: StackModel;
  let origin: string;
  const store = new InMemoryEpisodeStore();

  const baseOf = (of: Episode) => `${origin}/e/${of.id}/shop`;
  const tokenOf = (of: Episode, principal = (of.twin.world.company as Company).agent.id) =>
    postgrestToken(of.credentials.for('shop'), principal);
  const client = (of: Episode = episode) =>
    new PostgrestClient(baseOf(of), { headers: { Authorization: `Bearer ${tokenOf(of)}` } });
  const raw = (pathAndQuery: string, init: RequestInit = {}, of: Episode = episode) =>
    fetch(`${baseOf(of)}${pathAndQuery}`, {
      ...init,
      headers: { authorization: `Bearer ${tokenOf(of)}`, ...(init.headers as Record<string, string>) },
    });
  const all = async (table: string): Promise<Row[]> => {
    const { data, error } = await client().from(table).select('*');
    expect(error).toBeNull();
    return data as Row[];
  };

  beforeAll(async () => {
    const ingested = await ingestStack({ kind: 'path', path: path.join(__dirname, 'fixtures', 'bookshop') });
    model = ingested.model;
    engine = new TwinEngine(store, new StaticStackSource(model));
    const sizes = { recordsPerResource: 8 };
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: ingested.version, seed: 5, sizes });
    other = await engine.createEpisode({ tenantId: 'test', stackVersion: ingested.version, seed: 5, sizes });
    server = createGatewayServer(engine, 'test', { error: (message) => console.error(message) }, testOperatorKey);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('models the DDL as a data service: its tables, no generic resources', () => {
    const shop = model.services.find((service) => service.name === 'shop');
    expect(shop?.tables).toEqual(['authors', 'books', 'reviews']);
    expect(shop?.resources).toEqual([]);
    expect(shop?.operations.map((operation) => operation.id)).toContain('post_books');
  });

  it('serves seeded rows with every column, and every foreign key points at a row that exists', async () => {
    const [authors, books, reviews] = await Promise.all([all('authors'), all('books'), all('reviews')]);
    expect(authors).toHaveLength(8);
    expect(books).toHaveLength(8);
    expect(Object.keys(books[0]).sort()).toEqual(
      ['author_id', 'created_at', 'id', 'price', 'published_at', 'status', 'title'].sort(),
    );
    expect(authors.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const authorIds = new Set(authors.map((a) => a.id));
    const bookIds = new Set(books.map((b) => b.id));
    expect(books.every((b) => authorIds.has(b.author_id))).toBe(true);
    expect(reviews.length).toBeGreaterThan(0);
    expect(reviews.every((r) => bookIds.has(r.book_id))).toBe(true);
    // Values a CHECK lists are the only ones seeded, in either spelling (`IN (…)`, pg_dump's `= ANY (ARRAY[…])`).
    expect(books.every((b) => ['in_stock', 'preorder', 'sold_out'].includes(b.status as string))).toBe(true);
    expect(reviews.every((r) => [1, 2, 3, 4, 5].includes(r.stars as number))).toBe(true);
    const keys = reviews.map((r) => `${String(r.book_id)}/${String(r.reviewer)}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('filters with every horizontal operator, as PostgreSQL would', async () => {
    const books = await all('books');
    const prices = books.map((b) => b.price as number).sort((a, b) => a - b);
    const middle = prices[4];
    const first = books[0];
    const shop = client();
    const ids = (rows: Row[] | null) => (rows ?? []).map((r) => r.id).sort();
    const expectIds = (rows: Row[] | null, predicate: (b: Row) => boolean) =>
      expect(ids(rows)).toEqual(ids(books.filter(predicate)));

    expectIds((await shop.from('books').select('*').eq('id', first.id)).data, (b) => b.id === first.id);
    expectIds((await shop.from('books').select('*').neq('id', first.id)).data, (b) => b.id !== first.id);
    expectIds((await shop.from('books').select('*').gt('price', middle)).data, (b) => (b.price as number) > middle);
    expectIds((await shop.from('books').select('*').gte('price', middle)).data, (b) => (b.price as number) >= middle);
    expectIds((await shop.from('books').select('*').lt('price', middle)).data, (b) => (b.price as number) < middle);
    expectIds((await shop.from('books').select('*').lte('price', middle)).data, (b) => (b.price as number) <= middle);
    const word = String(first.title).slice(1, 4);
    expectIds((await shop.from('books').select('*').like('title', `%${word}%`)).data, (b) =>
      String(b.title).includes(word),
    );
    expectIds((await shop.from('books').select('*').ilike('title', `%${word.toUpperCase()}%`)).data, (b) =>
      String(b.title).toLowerCase().includes(word.toLowerCase()),
    );
    expectIds((await shop.from('books').select('*').in('id', [books[1].id, books[2].id])).data, (b) =>
      [books[1].id, books[2].id].includes(b.id),
    );
    expectIds((await shop.from('books').select('*').is('published_at', null)).data, (b) => b.published_at === null);
    expectIds(
      (
        await shop
          .from('books')
          .select('*')
          .not('id', 'in', `(${String(first.id)})`)
      ).data,
      (b) => b.id !== first.id,
    );
    expectIds(
      (
        await shop
          .from('books')
          .select('*')
          .or(`id.eq.${String(first.id)},and(price.gt.${middle},status.eq.in_stock)`)
      ).data,
      (b) => b.id === first.id || ((b.price as number) > middle && b.status === 'in_stock'),
    );
    // NULL is neither equal nor unequal: `not.eq` leaves rows whose value is NULL out, as SQL does.
    const titled = await shop.from('books').select('*').not('published_at', 'eq', '2000-01-01T00:00:00Z');
    expectIds(titled.data, (b) => b.published_at !== null);
  });

  it('selects columns, aliases and resources embedded over foreign keys both ways', async () => {
    const books = await all('books');
    const authors = await all('authors');
    const { data: picked } = await client().from('books').select('id, label:title').eq('id', books[0].id);
    expect(picked).toEqual([{ id: books[0].id, label: books[0].title }]);
    const { data: embedded } = await client().from('books').select('id, authors(name)').eq('id', books[0].id).single();
    const author = authors.find((a) => a.id === books[0].author_id) as Row;
    expect(embedded).toEqual({ id: books[0].id, authors: { name: author.name } });
    const { data: withBooks } = await client().from('authors').select('id, books(id)').eq('id', author.id).single();
    expect((withBooks as { books: Row[] }).books.map((b) => b.id).sort()).toEqual(
      books
        .filter((b) => b.author_id === author.id)
        .map((b) => b.id)
        .sort(),
    );
  });

  it('filters, orders and pages embedded resources, and drops parents without one under !inner', async () => {
    const books = await all('books');
    const status = books[0].status as string;
    const { data: inner } = await client()
      .from('authors')
      .select('id, books!inner(id, status)')
      .eq('books.status', status);
    const expected = [...new Set(books.filter((b) => b.status === status).map((b) => b.author_id))].sort();
    expect((inner as Row[]).map((a) => a.id).sort()).toEqual(expected);
    for (const author of inner as { id: number; books: Row[] }[]) {
      expect(author.books.every((b) => b.status === status)).toBe(true);
      expect(author.books.length).toBe(books.filter((b) => b.author_id === author.id && b.status === status).length);
    }
    const { data: latest } = await client()
      .from('authors')
      .select('id, books(id)')
      .order('id', { referencedTable: 'books', ascending: false })
      .limit(1, { referencedTable: 'books' });
    for (const author of latest as { id: number; books: Row[] }[]) {
      const own = books.filter((b) => b.author_id === author.id).map((b) => b.id as number);
      expect(author.books).toEqual(own.length > 0 ? [{ id: Math.max(...own) }] : []);
    }
    const stray = await raw('/books?select=id&reviews.stars=eq.5');
    expect([stray.status, ((await stray.json()) as Row).code]).toEqual([400, 'PGRST108']);
  });

  it('orders, pages with limit and offset, and answers Range with Content-Range and counts', async () => {
    const books = await all('books');
    const byPrice = [...books].sort((a, b) => (b.price as number) - (a.price as number) || 0);
    const { data: ordered } = await client().from('books').select('id, price').order('price', { ascending: false });
    expect((ordered as Row[]).map((r) => r.price)).toEqual(byPrice.map((b) => b.price));
    const { data: nullsFirst } = await client()
      .from('books')
      .select('id, published_at')
      .order('published_at', { ascending: true, nullsFirst: true });
    const dates = (nullsFirst as Row[]).map((r) => r.published_at);
    const nulls = dates.filter((d) => d === null).length;
    expect(dates.slice(0, nulls).every((d) => d === null)).toBe(true);

    const { data: page, count } = await client().from('books').select('id', { count: 'exact' }).order('id').range(2, 4);
    expect(count).toBe(8);
    expect((page as Row[]).map((r) => r.id)).toEqual(
      [...books]
        .map((b) => b.id)
        .sort((a, b) => Number(a) - Number(b))
        .slice(2, 5),
    );

    const ranged = await raw('/books?select=id&order=id', { headers: { range: '0-2', prefer: 'count=exact' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('0-2/8');
    expect(await ranged.json()).toHaveLength(3);
    const uncounted = await raw('/books?select=id', { headers: { range: '0-2' } });
    expect(uncounted.status).toBe(200);
    expect(uncounted.headers.get('content-range')).toBe('0-2/*');

    const head = await client().from('books').select('*', { count: 'exact', head: true }).gt('price', 0);
    expect(head.count).toBe(books.filter((b) => (b.price as number) > 0).length);
    expect(head.data).toBeNull();
  });

  it('answers one object for vnd.pgrst.object+json, and 406 for none or several', async () => {
    const books = await all('books');
    const one = await client().from('books').select('*').eq('id', books[0].id).single();
    expect(one.data).toEqual(books[0]);
    const many = await client().from('books').select('*').single();
    expect(many.status).toBe(406);
    expect(many.error?.code).toBe('PGRST116');
    const none = await client().from('books').select('*').eq('id', -1).maybeSingle();
    expect(none.error).toBeNull();
    expect(none.data).toBeNull();
  });

  it('inserts one row and many, filling defaults, serials and the clock, and returns them on request', async () => {
    const books = await all('books');
    const { data: author, status } = await client().from('authors').insert({ name: 'New Author' }).select().single();
    expect(status).toBe(201);
    expect(author).toEqual({ id: 9, name: 'New Author', country: null, born: null });
    const minimal = await client().from('books').insert({ id: 1001, author_id: 9, title: 'Quiet', price: 12.5 });
    expect(minimal.status).toBe(201);
    expect(minimal.data).toBeNull();
    const rows = [
      { id: 1002, author_id: 9, title: 'Loud', price: 9 },
      { id: 1003, author_id: books[0].author_id, title: 'Middle', price: 10, status: 'preorder' },
    ];
    // As PostgREST does: a bulk insert names its columns, and a row without one gets NULL unless defaults are asked for.
    const nulls = await client().from('books').insert(rows);
    expect([nulls.status, nulls.error?.code]).toEqual([400, '23502']);
    const { data: bulk, error } = await client()
      .from('books')
      .insert(rows, { defaultToNull: false })
      .select('id, status, created_at');
    expect(error).toBeNull();
    expect(bulk).toEqual([
      { id: 1002, status: 'in_stock', created_at: expect.any(String) as string },
      { id: 1003, status: 'preorder', created_at: expect.any(String) as string },
    ]);
    const { data: quiet } = await client().from('books').select('status').eq('id', 1001).single();
    expect(quiet).toEqual({ status: 'in_stock' });
  });

  it('updates and deletes what the filters select, returning it on request', async () => {
    const { data: updated, status } = await client()
      .from('books')
      .update({ status: 'sold_out' })
      .eq('id', 1002)
      .select('id, status');
    expect(status).toBe(200);
    expect(updated).toEqual([{ id: 1002, status: 'sold_out' }]);
    const quiet = await client().from('books').update({ price: 13 }).eq('id', 1001);
    expect(quiet.status).toBe(204);
    const { data: removed } = await client().from('books').delete().eq('id', 1003).select('id');
    expect(removed).toEqual([{ id: 1003 }]);
    const { data: left } = await client().from('books').select('id').in('id', [1001, 1002, 1003]).order('id');
    expect(left).toEqual([{ id: 1001 }, { id: 1002 }]);
  });

  it('upserts on the primary key with merge-duplicates', async () => {
    const { data } = await client()
      .from('books')
      .upsert([
        { id: 1001, author_id: 9, title: 'Quiet, revised', price: 14 },
        { id: 1004, author_id: 9, title: 'Fresh', price: 8 },
      ])
      .select('id, title');
    expect(data).toEqual([
      { id: 1004, title: 'Fresh' },
      { id: 1001, title: 'Quiet, revised' },
    ]);
  });

  it("keeps each episode's writes to itself, and records them as events by the caller", async () => {
    const mine = await client().from('books').select('id').eq('id', 1001);
    const theirs = await client(other).from('books').select('id').eq('id', 1001);
    expect(mine.data).toHaveLength(1);
    expect(theirs.data).toEqual([]);
    const agent = (episode.twin.world.company as Company).agent.id;
    const events = await engine.events('test', episode.id);
    const created = events.filter((e) => e.event.type === 'record.created');
    expect(created.map((e) => (e.event as { table: string }).table)).toContain('shop/books');
    expect(created.every((e) => e.actor === agent)).toBe(true);
    // A rebuilt episode (after a restart) reads the same rows from its log.
    engine.evict(episode.id);
    episode = await engine.episode('test', episode.id);
    expect((await client().from('books').select('id, title').eq('id', 1001)).data).toEqual([
      { id: 1001, title: 'Quiet, revised' },
    ]);
  });

  it('reads (any)/(all) modifiers, isdistinct, CSV and stripped nulls; ignores duplicates; caps affected rows', async () => {
    const books = await all('books');
    const [a, b] = [String(books[0].title).slice(0, 3), String(books[1].title).slice(0, 3)];
    const anyOf = await client()
      .from('books')
      .select('id')
      .likeAnyOf('title', [`${a}%`, `${b}%`]);
    expect((anyOf.data as Row[]).map((r) => r.id).sort()).toEqual(
      books
        .filter((x) => [a, b].some((p) => String(x.title).startsWith(p)))
        .map((x) => x.id)
        .sort(),
    );
    const allOf = await client()
      .from('books')
      .select('id')
      .likeAllOf('title', [`${a}%`, `${b}%`]);
    expect((allOf.data as Row[]).length).toBeLessThanOrEqual((anyOf.data as Row[]).length);
    const distinct = await client().from('books').select('id').filter('status', 'isdistinct', 'in_stock');
    expect((distinct.data as Row[]).map((r) => r.id).sort()).toEqual(
      books
        .filter((x) => x.status !== 'in_stock')
        .map((x) => x.id)
        .sort(),
    );
    const csv = await client().from('authors').select('id,name').order('id').limit(2).csv();
    expect(String(csv.data).split('\n')).toHaveLength(3);
    expect(String(csv.data).split('\n')[0]).toBe('id,name');
    const stripped = await client().from('authors').select('id,born').is('born', null).stripNulls();
    expect((stripped.data as Row[]).every((row) => !('born' in row))).toBe(true);
    const ignored = await client()
      .from('authors')
      .upsert([{ id: 1, name: 'Not Them' }], { ignoreDuplicates: true, onConflict: 'id' })
      .select('id');
    expect(ignored.data).toEqual([]);
    expect((await client().from('authors').select('name').eq('id', 1).single()).data).not.toEqual({ name: 'Not Them' });
    const capped = await raw('/books?id=gt.0', {
      method: 'PATCH',
      body: JSON.stringify({ status: 'sold_out' }),
      headers: { 'content-type': 'application/json', prefer: 'handling=strict,max-affected=1' },
    });
    expect([capped.status, ((await capped.json()) as Row).code]).toEqual([400, 'PGRST124']);
  });

  it("refuses writes that break the schema's keys and constraints, with PostgreSQL's codes", async () => {
    const books = await all('books');
    const duplicate = await client().from('books').insert({ id: books[0].id, author_id: 1, title: 'x', price: 1 });
    expect([duplicate.status, duplicate.error?.code]).toEqual([409, '23505']);
    const orphan = await client().from('books').insert({ id: 2001, author_id: 999, title: 'x', price: 1 });
    expect([orphan.status, orphan.error?.code]).toEqual([409, '23503']);
    const missing = await client().from('books').insert({ id: 2002, author_id: 1 });
    expect([missing.status, missing.error?.code]).toEqual([400, '23502']);
    const unchecked = await client().from('books').update({ status: 'lost' }).eq('id', books[0].id);
    expect([unchecked.status, unchecked.error?.code]).toEqual([400, '23514']);
    const referenced = await client().from('authors').delete().eq('id', books[0].author_id);
    expect([referenced.status, referenced.error?.code]).toEqual([409, '23503']);
    const everything = await client().from('books').delete().gt('id', -1000).lt('id', -999);
    expect(everything.status).toBe(204);
    const unfiltered = await raw('/books', { method: 'DELETE' });
    expect(unfiltered.status).toBe(400);
    expect(((await unfiltered.json()) as Row).code).toBe('21000');
    const bulkNothing = await client()
      .from('books')
      .insert([
        { id: 3001, author_id: 1, title: 'ok', price: 1 },
        { id: 3002, author_id: 999, title: 'bad', price: 1 },
      ]);
    expect(bulkNothing.status).toBe(409);
    expect((await client().from('books').select('id').eq('id', 3001)).data).toEqual([]);
  });

  it.each([
    ['an unknown column in a filter', '/books?nope=eq.1', {}, 400, '42703'],
    ['an unknown operator', '/books?price=almost.3', {}, 400, 'PGRST100'],
    ['an operator without a value', '/books?price=eq', {}, 400, 'PGRST100'],
    ['a value of the wrong type', '/books?id=eq.1%20OR%201=1', {}, 400, '22P02'],
    ['an unknown column in select', '/books?select=id,password', {}, 400, '42703'],
    ['a sub-select in select', '/books?select=id,(select%201)', {}, 400, 'PGRST100'],
    ['an unknown column in order', '/books?order=title;drop%20table%20books', {}, 400, '42703'],
    ['a bad order modifier', '/books?order=title.sideways', {}, 400, 'PGRST100'],
    ['an unbalanced or', '/books?or=(id.eq.1', {}, 400, 'PGRST100'],
    ['a negative limit', '/books?limit=-1', {}, 400, 'PGRST100'],
    ['a backwards range', '/books', { range: '5-2' }, 416, 'PGRST103'],
    ['a range that is not one', '/books', { range: 'bytes=a-b' }, 416, 'PGRST103'],
    ['an offset past the end, counted', '/books', { range: '500-', prefer: 'count=exact' }, 416, 'PGRST103'],
    ['an unknown table', '/secrets', {}, 404, 'PGRST205'],
    ['an embed without a relationship', '/authors?select=id,reviews(stars)', {}, 400, 'PGRST200'],
    ['a media type it does not serve', '/books', { accept: 'application/xml' }, 406, 'PGRST107'],
  ])('answers %s with a 4xx in PostgREST error shape', async (_name, url, headers, status, code) => {
    const response = await raw(url, { headers });
    expect(response.status).toBe(status);
    const body = (await response.json()) as Row;
    expect(body).toEqual({ code, message: expect.any(String) as string, details: body.details, hint: body.hint });
  });

  it('treats SQL in values as plain text, and bad bodies as 4xx', async () => {
    const injected = await client().from('books').select('id').eq('title', "'; DROP TABLE books; --");
    expect([injected.status, injected.data]).toEqual([200, []]);
    expect((await all('books')).length).toBeGreaterThan(0);
    const likeBomb = await client()
      .from('books')
      .select('id')
      .like('title', `${'%a'.repeat(200)}b`);
    expect(likeBomb.status).toBe(200);
    const badJson = await raw('/books', {
      method: 'POST',
      body: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect([badJson.status, ((await badJson.json()) as Row).code]).toEqual([400, 'PGRST102']);
    const badColumn = await client()
      .from('books')
      .insert({ id: 4001, author_id: 1, title: 't', price: 1, admin: true });
    expect([badColumn.status, badColumn.error?.code]).toEqual([400, 'PGRST204']);
    const badType = await client().from('books').update({ price: 'free' }).eq('id', 1001);
    expect([badType.status, badType.error?.code]).toEqual([400, '22P02']);
  });

  it('takes a bulk insert of thousands of rows, and refuses an embed that would multiply them without bound', async () => {
    const many = Array.from({ length: 2000 }, (_, index) => ({
      id: 10_000 + index,
      author_id: 1,
      title: 't',
      price: 1,
    }));
    const inserted = await client().from('books').insert(many);
    expect({ status: inserted.status, error: inserted.error }).toEqual({ status: 201, error: null });
    const { count } = await client().from('books').select('*', { count: 'exact', head: true }).eq('author_id', 1);
    expect(count).toBeGreaterThanOrEqual(2000);
    // Each of author 1's books embeds author 1 again, who embeds all its books: millions of rows if answered.
    const bomb = await raw('/authors?select=id,books(id,authors(id,books(id)))&id=eq.1');
    expect(bomb.status).toBe(400);
    expect(((await bomb.json()) as Row).code).toBe('54000');
    const removed = await client().from('books').delete().gte('id', 10_000).lt('id', 12_000);
    expect(removed.status).toBe(204);
  });

  it('refuses calls without the episode token, or with a forged one, and logs the forgery', async () => {
    // Supabase clients send the token as `apikey` too; an anonymous read right after one must not get its answer.
    const keyed = await new PostgrestClient(baseOf(episode), { headers: { apikey: tokenOf(episode) } })
      .from('books')
      .select('id');
    expect(keyed.status).toBe(200);
    const anonymous = await new PostgrestClient(baseOf(episode)).from('books').select('id');
    expect([anonymous.status, anonymous.error?.code]).toEqual([401, 'PGRST302']);
    const foreign = await new PostgrestClient(baseOf(episode), {
      headers: { Authorization: `Bearer ${tokenOf(other)}` },
    })
      .from('books')
      .insert({ id: 5001, author_id: 1, title: 'x', price: 1 });
    expect([foreign.status, foreign.error?.code]).toEqual([401, 'PGRST301']);
    const events = await engine.events('test', episode.id);
    expect(events.some((e) => e.event.type === 'operation.refused' && e.event.status === 401)).toBe(true);
    expect((await client().from('books').select('id').eq('id', 5001)).data).toEqual([]);
  });
});
