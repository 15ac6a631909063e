import request from 'supertest';
import { DataSource } from 'typeorm';

import { AuditTrailRepository } from '@libs/persistence';
import { bearer, issueApiKey } from '@test/support/api-keys';
import { startTestApiApp, TestApiApp } from '@test/support/api-app';

/** Real: the api app, PostgreSQL with the migrations. Mocked: nothing. */
describe('API keys over the api app', () => {
  let dataSource: DataSource;
  let api: TestApiApp;
  let admin: { id: string; token: string };
  const server = () => request(api.app.getHttpServer());
  const keyCount = async () =>
    (await dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM api_keys'))[0].n;

  beforeAll(async () => {
    api = await startTestApiApp();
    ({ dataSource } = api);
    admin = await issueApiKey(dataSource, 'acme', 'admin');
  });

  afterAll(() => api.close());

  it('shows a new key once, keeps only its hash, lets it work until revoked, and records both in the trail', async () => {
    const created = await server()
      .post('/v1/keys')
      .set(bearer(admin.token))
      .send({ role: 'trainer', name: 'ci runner', expires_at: '2099-01-01T00:00:00Z' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      tenantId: 'acme',
      role: 'trainer',
      name: 'ci runner',
      expiresAt: '2099-01-01T00:00:00.000Z',
      createdBy: `key:${admin.id}`,
      shown_once: true,
    });
    const token = created.body.key as string;
    const secret = token.split('_').slice(2).join('_');
    const stored = await dataSource.query<object[]>('SELECT * FROM api_keys WHERE id = $1', [created.body.id]);
    expect(JSON.stringify(stored)).not.toContain(secret);
    const listed = await server().get('/v1/keys').set(bearer(admin.token)).expect(200);
    expect(listed.text).not.toContain(secret);
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toContain(created.body.id);

    await server().get('/v1/rollouts').set(bearer(token)).expect(200);
    const revoked = await server().delete(`/v1/keys/${created.body.id}`).set(bearer(admin.token));
    expect([revoked.status, revoked.body.revokedBy]).toEqual([200, `key:${admin.id}`]);
    const refused = await server().get('/v1/rollouts').set(bearer(token));
    expect([refused.status, refused.body.message]).toEqual([
      401,
      `API key ${created.body.id} was revoked at ${revoked.body.revokedAt}`,
    ]);
    // A second revocation changes nothing and records nothing.
    await server().delete(`/v1/keys/${created.body.id}`).set(bearer(admin.token)).expect(200);

    const trail = new AuditTrailRepository(dataSource);
    const entries = await trail.forSubject('acme', 'api_key', created.body.id);
    expect(entries.map((e) => [e.action, e.actor, e.actorKind])).toEqual([
      ['api_key.created', `key:${admin.id}`, 'admin'],
      ['api_key.revoked', `key:${admin.id}`, 'admin'],
    ]);
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect((await trail.verify('acme')).broken).toBeUndefined();
  });

  it('makes keys expire in 90 days unless asked otherwise, and never only when asked with expires_at: null', async () => {
    const before = Date.now();
    const lasting = await server().post('/v1/keys').set(bearer(admin.token)).send({ role: 'reviewer' }).expect(201);
    const days = (Date.parse(lasting.body.expiresAt as string) - before) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(90);
    expect(days).toBeLessThan(90.01);
    const forever = await server()
      .post('/v1/keys')
      .set(bearer(admin.token))
      .send({ role: 'reviewer', expires_at: null })
      .expect(201);
    expect(forever.body.expiresAt).toBeNull();
  });

  it.each([
    ['no header', {}, /missing API key/],
    ['another scheme', { Authorization: 'Basic YWRtaW46YWRtaW4=' }, /Bearer <key>/],
    ['a malformed key', { Authorization: 'Bearer mk_nothex_short' }, /not a Mirror API key/],
    ['an episode token', { Authorization: `Bearer mep_${'A'.repeat(43)}` }, /not a Mirror API key/],
    ['an unknown key', { Authorization: `Bearer mk_0123456789abcdef_${'x'.repeat(43)}` }, /unknown API key/],
    [
      'a key with a forged secret',
      () => ({ Authorization: `Bearer mk_${admin.id}_${'y'.repeat(43)}` }),
      /unknown API key/,
    ],
  ])('answers %s with a 401 that says why, on every guarded route', async (_name, headers, message) => {
    const header = typeof headers === 'function' ? headers() : headers;
    for (const [method, path] of [
      ['get', '/v1/stacks'],
      ['post', '/v1/stacks'],
      ['get', '/v1/rollouts/00000000-0000-4000-8000-000000000000'],
      ['post', '/v1/keys'],
      ['delete', '/v1/keys/0123456789abcdef'],
    ] as const) {
      const response = await server()[method](path).set(header);
      expect([method, path, response.status]).toEqual([method, path, 401]);
      expect(response.body.message).toMatch(message);
    }
  });

  it('refuses an expired key with a 401 naming the expiry', async () => {
    const key = await issueApiKey(dataSource, 'acme', 'reviewer', '2020-01-01T00:00:00.000Z');

    const response = await server().get('/v1/stacks').set(bearer(key.token));

    expect([response.status, response.body.message]).toEqual([
      401,
      `API key ${key.id} expired at 2020-01-01T00:00:00.000Z`,
    ]);
  });

  it.each([
    [{ role: 'superuser' }, 'role: must be one of engineer, trainer, reviewer, admin'],
    [{}, 'role: must be one of engineer, trainer, reviewer, admin'],
    [{ role: 'trainer', expires_at: 'tomorrow' }, 'expires_at: must be an ISO 8601 date-time'],
    [{ role: 'trainer', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at: must be in the future'],
    [{ role: 'trainer', name: '' }, 'name: must not be empty'],
    [{ role: 'trainer', tenant: 'other' }, 'body: unknown field tenant'],
    [[{ role: 'trainer' }], 'body: must be a JSON object (Content-Type: application/json)'],
  ])('refuses the key request %j with a 400 and stores nothing', async (body, message) => {
    const before = await keyCount();

    const response = await server().post('/v1/keys').set(bearer(admin.token)).send(body);

    expect([response.status, response.body.message]).toEqual([400, message]);
    expect(await keyCount()).toBe(before);
  });

  it('refuses a body that is not JSON with a 400, and an id that names no key with a 404', async () => {
    const broken = await server()
      .post('/v1/keys')
      .set(bearer(admin.token))
      .set('content-type', 'application/json')
      .send('{"role": ');
    const plain = await server().post('/v1/keys').set(bearer(admin.token)).set('content-type', 'text/plain').send('hi');
    const missing = await server().delete('/v1/keys/not-a-key-id').set(bearer(admin.token));

    expect(broken.status).toBe(400);
    expect([plain.status, plain.body.message]).toEqual([
      400,
      'body: must be a JSON object (Content-Type: application/json)',
    ]);
    expect([missing.status, missing.body.message]).toEqual([404, 'no API key not-a-key-id']);
  });
});
