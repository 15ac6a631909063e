import { json, startGateway, tenant } from '@test/support/gateway-harness';
import { operatorHeaders } from '@test/support/operator-key';

/** Real: the gateway over HTTP, the twin engine, PostgreSQL event logs. Mocked: nothing. */
describe('twin gateway', () => {
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let episode: string;

  /** The spec declares bearer auth: every episode's calls present its agent token, issued once by the operator. */
  const tokens = new Map<string, Promise<string>>();
  const tokenOf = (id: string): Promise<string> => {
    let token = tokens.get(id);
    if (!token) {
      token = fetch(`${gateway.base}/_mirror/episodes/${id}/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        body: JSON.stringify({ service: 'procurement', principal: 'agent' }),
      }).then(async (issued) => String((await json(issued)).token));
      tokens.set(id, token);
    }
    return token;
  };
  const twin = async (id: string, path: string, init: RequestInit = {}) =>
    fetch(`${gateway.base}/e/${id}/procurement${path}`, {
      ...init,
      headers: { authorization: `Bearer ${await tokenOf(id)}`, ...(init.headers as Record<string, string>) },
    });
  const call = (path: string, init: RequestInit = {}) => twin(episode, path, init);
  const post = (
    path: string,
    body: unknown,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ) => call(path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

  beforeAll(async () => {
    gateway = await startGateway();
    const created = await fetch(`${gateway.base}/_mirror/episodes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...operatorHeaders },
      body: JSON.stringify({ stackVersion: gateway.version, seed: 11, sizes: { recordsPerResource: 30 } }),
    });
    if (created.status !== 201) {
      throw new Error(`could not create the episode: ${created.status}`);
    }
    episode = (await json(created)).id;
  });

  afterAll(async () => {
    await gateway.stop();
  });

  afterEach(() => {
    // Nothing a test sends may reach the 500 path.
    if (gateway.errors.length > 0) {
      throw new Error(`the gateway logged internal errors: ${gateway.errors.join('\n')}`);
    }
  });

  it('keeps what the agent did: create, read, page, filter, update, delete', async () => {
    const created = await post('/suppliers', { name: 'Bolt GmbH', country: 'DE', payment_terms_days: 45 });
    expect(created.status).toBe(201);
    const supplier = await json(created);
    expect(supplier).toMatchObject({
      name: 'Bolt GmbH',
      country: 'DE',
      payment_terms_days: 45,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    await expect(call(`/suppliers/${supplier.id}`).then(json)).resolves.toEqual(supplier);
    const filtered = await json(await call('/suppliers?status=active&limit=100'));
    expect(filtered.data.every((s: { status: string }) => s.status === 'active')).toBe(true);

    // Cursor pagination walks every supplier exactly once, the new one last.
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await json(await call(`/suppliers?limit=7${cursor ? `&cursor=${cursor}` : ''}`));
      seen.push(...page.data.map((s: { id: string }) => s.id));
      cursor = page.next_cursor ?? null;
    }
    expect(seen).toHaveLength(31);
    expect(new Set(seen).size).toBe(31);
    expect(seen[30]).toBe(supplier.id);

    const updated = await json(
      await call(`/suppliers/${supplier.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bolt GmbH', country: 'DE', status: 'on_hold' }),
      }),
    );
    expect(updated).toMatchObject({ id: supplier.id, status: 'on_hold', name: 'Bolt GmbH' });

    const contact = await post(`/suppliers/${supplier.id}/contacts`, { name: 'Ada Bolt', email: 'ada@bolt.example' });
    expect(contact.status).toBe(201);
    expect(await json(contact)).toMatchObject({ supplier_id: supplier.id, email: 'ada@bolt.example' });
    expect((await json(await call(`/suppliers/${supplier.id}/contacts`))).data).toHaveLength(1);
  });

  it.each<[string, () => Promise<Response>, number, RegExp]>([
    [
      'a field of the wrong type',
      () => post('/suppliers', { name: 5, country: 'DE' }),
      422,
      /body\/name must be string/,
    ],
    ['a missing required field', () => post('/suppliers', { name: 'x' }), 422, /body requires country/],
    [
      'a value breaking a pattern',
      () => post('/suppliers', { name: 'x', country: 'Germany' }),
      422,
      /body\/country must match pattern/,
    ],
    ['malformed JSON', () => post('/suppliers', '{"name": '), 422, /malformed JSON body/],
    [
      'the wrong content type',
      () => post('/suppliers', 'name=x', { 'content-type': 'text/plain' }),
      415,
      /content type text\/plain is not accepted; use application\/json/,
    ],
    [
      'a 10 MB body',
      () => post('/suppliers', JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024), country: 'DE' })),
      413,
      /exceeds/,
    ],
    ['an unknown path', () => call('/nothing-here'), 404, /no operation of procurement matches GET \/nothing-here/],
    [
      'a method the path does not take',
      () => call('/items', { method: 'DELETE' }),
      405,
      /DELETE is not allowed on \/items; use GET/,
    ],
    ['a query parameter of the wrong type', () => call('/items?page=zero'), 400, /query.page must be integer/],
    ['a missing record', () => call('/suppliers/00000000-0000-4000-8000-000000000000'), 404, /no suppliers with id/],
    [
      'an unknown episode',
      () => fetch(`${gateway.base}/e/00000000-0000-4000-8000-000000000000/procurement/items`),
      404,
      /no episode/,
    ],
    [
      'an unknown service',
      () => fetch(`${gateway.base}/e/${episode}/crm/items`),
      404,
      /the stack has no service "crm"/,
    ],
  ])('answers %s with a clear 4xx', async (_name, send, status, message) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect((await json(response)).message).toMatch(message);
  });

  it('resets an episode to its world and forks one from the middle of another', async () => {
    const fresh = (
      await json(
        await fetch(`${gateway.base}/_mirror/episodes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...operatorHeaders },
          body: JSON.stringify({ stackVersion: gateway.version, seed: 11 }),
        }),
      )
    ).id;
    const at = (id: string, path: string, init?: RequestInit) => twin(id, path, init);
    const create = (id: string, name: string) =>
      at(id, '/suppliers', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, country: 'FR' }),
      });
    const names = async (id: string): Promise<string[]> =>
      ((await json(await at(id, '/suppliers?limit=200'))) as { data: { name: string }[] }).data.map((s) => s.name);
    await create(fresh, 'first');
    await create(fresh, 'second');

    const fork = await json(
      await fetch(`${gateway.base}/_mirror/episodes/${fresh}/fork`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        body: JSON.stringify({ atSeq: 1 }),
      }),
    );
    expect(fork).toMatchObject({ seq: 1, forkedFrom: { episodeId: fresh, seq: 1 } });
    expect(await names(fork.id)).toContain('first');
    expect(await names(fork.id)).not.toContain('second');

    // A reset is a new episode back at the world; the old one keeps its history.
    const reset = await json(
      await fetch(`${gateway.base}/_mirror/episodes/${fresh}/reset`, { method: 'POST', headers: operatorHeaders }),
    );
    expect(reset).toMatchObject({ seq: 0, forkedFrom: { episodeId: fresh, seq: 0 } });
    expect(reset.id).not.toBe(fresh);
    expect(await names(reset.id)).not.toContain('first');
    expect(await names(fresh)).toEqual(expect.arrayContaining(['first', 'second']));
    expect(await names(fork.id)).toContain('first');
  });

  it('moves the business clock forward only, stamps records with it, and keeps it across a rebuild', async () => {
    const clock = (at: string) =>
      fetch(`${gateway.base}/_mirror/episodes/${episode}/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        body: JSON.stringify({ at }),
      });
    const moved = await clock('2026-06-03T14:00:00Z');
    expect(moved.status).toBe(200);
    expect((await json(moved)).now).toBe('2026-06-03T14:00:00.000Z');
    const created = await json(await post('/suppliers', { name: 'Clockwork Ltd', country: 'GB' }));
    expect(created.created_at).toBe('2026-06-03T14:00:01.000Z');

    // Each logged event ticks the clock a second (the create and the record change it tells), so ask where it is.
    const { now } = (await json(
      await fetch(`${gateway.base}/_mirror/episodes/${episode}`, { headers: operatorHeaders }),
    )) as { now: string };
    expect(now > '2026-06-03T14:00:00.000Z').toBe(true);
    const backwards = await clock('2026-06-02T09:00:00Z');
    expect(backwards.status).toBe(409);
    expect((await json(backwards)).message).toBe(`the clock is at ${now}; it cannot move to 2026-06-02T09:00:00Z`);
    expect((await clock('not a time')).status).toBe(422);

    // Another engine on the same database rebuilds the episode from its log, clock jumps included.
    const rebuilt = await gateway.freshEngine().episode(tenant, episode);
    expect(rebuilt.now()).toBe(now);
    // Its secret too, so the tokens it issued still open its twins.
    const original = await gateway.engine.episode(tenant, episode);
    expect(rebuilt.descriptor.secret).toBe(original.descriptor.secret);
    expect(Buffer.from(rebuilt.descriptor.secret, 'base64url')).toHaveLength(32);
  });

  it('injects faults on demand: 429 with Retry-After past a rate limit, 503 in the spec shape', async () => {
    const faults = await fetch(`${gateway.base}/_mirror/episodes/${episode}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...operatorHeaders },
      body: JSON.stringify({
        operations: { listItems: { rateLimit: { requests: 2, windowSeconds: 60 } }, getItem: { errorRate: 1 } },
      }),
    });
    expect(faults.status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await call('/items')).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await call('/items');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const failing = await call('/items/anything');
    expect(failing.status).toBe(503);
    expect(await json(failing)).toMatchObject({
      code: 'service_unavailable',
      message: 'injected fault: service unavailable',
    });

    await fetch(`${gateway.base}/_mirror/episodes/${episode}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...operatorHeaders },
      body: '{}',
    });
    expect((await call('/items')).status).toBe(200);
  });

  it('refuses bad episode settings with located problems', async () => {
    const response = await fetch(`${gateway.base}/_mirror/episodes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...operatorHeaders },
      body: JSON.stringify({ stackVersion: 'nope', seed: -1 }),
    });
    expect(response.status).toBe(422);
    expect((await json(response)).problems.map((p: { location: string }) => p.location)).toEqual([
      'body/stackVersion',
      'body/seed',
    ]);
  });
});
