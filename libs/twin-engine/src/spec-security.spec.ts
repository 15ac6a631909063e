import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { TwinRequest, TwinResponse } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

const fixtures = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'fidelity', 'security');

/**
 * Real: ingestion of each lone spec (no world people), the twin engine, the response factory's error shapes. The
 * episode store is the in-memory one. Each spec declares one way to authenticate; the twin enforces it per operation.
 */
const twinOf = async (file: string): Promise<{ episode: Episode; other: Episode; service: string }> => {
  const { model, version } = await ingestStack({ kind: 'path', path: path.join(fixtures, file) });
  const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
  const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 4 });
  const other = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 4 });
  return { episode, other, service: model.services[0].name };
};

const request = (init: Partial<TwinRequest> & { path: string }): TwinRequest => ({
  method: 'GET',
  query: new URLSearchParams(),
  headers: {},
  ...init,
});

const json = (body: unknown): Pick<TwinRequest, 'body' | 'headers'> => ({
  body: Buffer.from(JSON.stringify(body)),
  headers: { 'content-type': 'application/json' },
});

/** The spec-declared body of a response as the validators read it. */
const conforms = (episode: Episode, service: string, operationId: string, response: TwinResponse): boolean => {
  const twin = episode.twin.services.get(service);
  const plan = twin?.plans.find((p) => p.operation.id === operationId);
  const responses = (plan?.operation.responses ?? []).find((r) => r.status === String(response.status));
  const pointer = responses ? Object.values(responses.content)[0] : undefined;
  return pointer ? (twin?.validators.validator(pointer)(response.body) ?? false) : false;
};

/** A token with its MAC swapped for another of the same length: what an agent that cannot compute MACs can make. */
const forge = (token: string): string =>
  token.replace(
    /^mirror_([0-9a-f]{32})_/,
    (_, mac: string) => `mirror_${mac.replace(/./g, (d) => (d === '0' ? '1' : '0'))}_`,
  );

describe('security as a lone spec declares it', () => {
  it('bearer by default: anonymous where the operation says so, else 401 in the spec shape with a challenge', async () => {
    const { episode, other, service } = await twinOf('bearer-global.yaml');
    const token = episode.agentTokenFor(service) as string;
    expect(token).toMatch(/^mirror_[0-9a-f]{32}_agent$/);
    const call = (init: Partial<TwinRequest> & { path: string }) =>
      episode.handle(service, request(init), `http://twin${init.path}`);

    expect((await call({ path: '/health' })).status).toBe(200);
    const missing = await call({ path: '/tickets' });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(`Bearer realm="${service}"`);
    expect(missing.headers['content-type']).toBe('application/problem+json');
    expect(conforms(episode, service, 'listTickets', missing)).toBe(true);
    expect((missing.body as { detail: string }).detail).toContain('"Authorization: Bearer <token>" header');

    const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
    expect((await call({ path: '/tickets', headers: bearer(token) })).status).toBe(200);
    const refusedTokens = [
      forge(token),
      other.agentTokenFor(service) as string,
      // A JWT-looking token of nobody's making, and the token's own principal claimed without its MAC.
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJl',
      'agent',
    ];
    for (const wrong of refusedTokens) {
      const refused = await call({ path: '/tickets', headers: bearer(wrong) });
      expect({ wrong, status: refused.status }).toEqual({ wrong, status: 401 });
      expect(refused.headers['www-authenticate']).toBe(`Bearer realm="${service}", error="invalid_token"`);
      expect(conforms(episode, service, 'listTickets', refused)).toBe(true);
    }
    // The right token in a place the spec does not declare (an API key header) is no credential here.
    expect((await call({ path: '/tickets', headers: { 'x-api-key': token } })).status).toBe(401);

    const created = await call({
      method: 'POST',
      path: '/tickets',
      ...json({ subject: 'printer' }),
      headers: { ...json({}).headers, ...bearer(token) },
    });
    expect(created.status).toBe(201);
    const forged = await call({
      method: 'POST',
      path: '/tickets',
      ...json({ subject: 'x' }),
      headers: { ...json({}).headers, ...bearer(forge(token)) },
    });
    expect(forged.status).toBe(401);
  });

  it('an API key in the query, where the spec puts it', async () => {
    const { episode, other, service } = await twinOf('apikey-query.yaml');
    const token = episode.agentTokenFor(service) as string;
    const call = (query: Record<string, string>, headers: Record<string, string> = {}) =>
      episode.handle(
        service,
        request({ path: '/forecasts', query: new URLSearchParams(query), headers }),
        'http://twin/forecasts',
      );
    const missing = await call({});
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(`ApiKey realm="${service}", in="query", name="appid"`);
    expect(conforms(episode, service, 'listForecasts', missing)).toBe(true);
    // Where the message goes in a nested error object is the response factory's to fill; the challenge says it too.
    expect((await call({ appid: token })).status).toBe(200);
    expect((await call({ appid: forge(token) })).status).toBe(401);
    expect((await call({ appid: other.agentTokenFor(service) as string })).status).toBe(401);
    expect((await call({}, { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('HTTP basic, the token as user name or password', async () => {
    const { episode, service } = await twinOf('basic.yaml');
    const token = episode.agentTokenFor(service) as string;
    const basic = (userPass: string) => ({ authorization: `Basic ${Buffer.from(userPass).toString('base64')}` });
    const call = (headers: Record<string, string>) =>
      episode.handle(service, request({ path: '/accounts', headers }), 'http://twin/accounts');
    const missing = await call({});
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(`Basic realm="${service}", charset="UTF-8"`);
    expect(conforms(episode, service, 'listAccounts', missing)).toBe(true);
    expect((missing.body as { message: string }).message).toBe(
      'GET /accounts needs a credential: an "Authorization: Basic <base64 of token:>" header (the token as user name), with the token issued for this service',
    );
    expect((await call(basic(`${token}:`))).status).toBe(200);
    expect((await call(basic(`me:${token}`))).status).toBe(200);
    expect((await call(basic('me:secret'))).status).toBe(401);
    expect((await call({ authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('OAuth2 and OpenID Connect: bearer access tokens, and a token without the scope gets 403', async () => {
    const { episode, service } = await twinOf('oauth2-scopes.yaml');
    const all = episode.agentTokenFor(service) as string;
    const reader = episode.tokenFor(service, 'agent', ['pets:read']) as string;
    const call = (method: string, token?: string) =>
      episode.handle(
        service,
        request({
          method,
          path: '/pets',
          ...(method === 'POST' ? { body: Buffer.from('{"name":"Rex"}') } : {}),
          headers: {
            ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
        }),
        'http://twin/pets',
      );
    expect((await call('GET')).headers['www-authenticate']).toBe(`Bearer realm="${service}"`);
    expect((await call('GET', all)).status).toBe(200);
    expect((await call('GET', reader)).status).toBe(200);
    expect((await call('POST', all)).status).toBe(201);
    const lacking = await call('POST', reader);
    expect(lacking.status).toBe(403);
    expect(lacking.headers['www-authenticate']).toBe(
      `Bearer realm="${service}", error="insufficient_scope", scope="pets:write"`,
    );
    expect(conforms(episode, service, 'createPet', lacking)).toBe(true);
    expect(JSON.stringify(lacking.body)).toContain('pets:write');
    // The scopes are under the MAC: a reader's token widened by hand is no token at all.
    const widened = reader.replace(/~[^~]+$/, `~${Buffer.from('pets:read pets:write').toString('base64url')}`);
    expect((await call('POST', widened)).status).toBe(401);
  });

  it('Swagger 2.0 securityDefinitions: an API key header', async () => {
    const { episode, service } = await twinOf('swagger2-apikey.yaml');
    const token = episode.agentTokenFor(service) as string;
    const call = (headers: Record<string, string>) =>
      episode.handle(service, request({ path: '/items', headers }), 'http://twin/items');
    const missing = await call({});
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(`ApiKey realm="${service}", in="header", name="X-API-Key"`);
    expect(conforms(episode, service, 'listItems', missing)).toBe(true);
    expect((await call({ 'x-api-key': token })).status).toBe(200);
    expect((await call({ 'x-api-key': forge(token) })).status).toBe(401);
  });
});
