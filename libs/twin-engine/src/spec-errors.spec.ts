import * as path from 'node:path';

import { DocumentValidators } from '@libs/openapi-schemas';
import { ingestStack } from '@libs/stack-ingestion';
import type { ServiceModel } from '@libs/stack-model';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { TwinRequest, TwinResponse } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

const fixtures = path.join(__dirname, '../../../test/fixtures/fidelity/values');

/** Real: ingestion of a lone spec written for these tests, the twin engine, an episode; the event store in memory. */
const twinOf = async (file: string): Promise<{ episode: Episode; service: ServiceModel }> => {
  const { model, version } = await ingestStack({ kind: 'path', path: path.join(fixtures, file) });
  const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
  const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 7 });
  return { episode, service: model.services[0] };
};

const send = (
  episode: Episode,
  service: string,
  method: string,
  route: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<TwinResponse> => {
  const request: TwinRequest = {
    method,
    path: route,
    query: new URLSearchParams(),
    headers: body === undefined ? {} : { 'content-type': contentType },
    ...(body === undefined ? {} : { body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) }),
  };
  return episode.handle(service, request, `http://twin/${service}${route}`);
};

/** The twin's own validator for the schema the spec declares for that response. */
const declaredSchemaAccepts = (service: ServiceModel, operation: string, status: string, body: unknown): boolean => {
  const validators = new DocumentValidators(service.document, service.dialect);
  const declared = service.operations.find((o) => o.id === operation)?.responses.find((r) => r.status === status);
  const pointer = Object.values(declared?.content ?? {})[0];
  if (!pointer) {
    throw new Error(`${operation} declares no ${status} body`);
  }
  const validate = validators.validator(pointer);
  const valid = validate(body);
  if (!valid) {
    throw new Error(`${JSON.stringify(body)} breaks ${pointer}: ${JSON.stringify(validate.errors)}`);
  }
  return valid;
};

const lorem = /\b(lorem|ipsum|dolor|amet|consectetur|adipisci|tempor|vobis|volva|deorsum|tricesimus)\b/i;

describe('error bodies in the spec’s own shape (helpdesk, OpenAPI 3.1)', () => {
  let episode: Episode;
  let service: ServiceModel;

  beforeAll(async () => ({ episode, service } = await twinOf('helpdesk.yaml')));

  it('refuses an invalid ticket with the declared 422: the const problem type, the status, one item per problem', async () => {
    const response = await send(episode, service.name, 'POST', '/tickets', { state: 'pending' });
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toBe('application/problem+json');
    const body = response.body as Record<string, unknown>;
    expect(declaredSchemaAccepts(service, 'createTicket', '422', body)).toBe(true);
    expect(body).toMatchObject({
      type: 'https://helpdesk.test/problems/validation',
      title: 'Unprocessable Entity',
      status: 422,
      detail: expect.stringMatching(/subject/),
    });
    // The validator reports the first problem it meets; each one reported is an item, and no item is made up.
    expect(body.errors).toEqual([{ field: 'subject', message: 'subject is required' }]);
    expect(JSON.stringify(body)).not.toMatch(lorem);
  });

  it('answers a missing ticket with the declared 404: the message nested under error, a type from its enum, status 404', async () => {
    const response = await send(episode, service.name, 'GET', '/tickets/nope');
    expect(response.status).toBe(404);
    expect(declaredSchemaAccepts(service, 'getTicket', '404', response.body)).toBe(true);
    expect(response.body).toEqual({
      status: 404,
      error: { type: 'not_found', message: expect.stringContaining('nope'), code: 'not_found' },
    });
  });

  it('says a body that is not JSON is a 400 where one is declared, and 422 where only 422 covers it', async () => {
    const declared400 = await send(episode, service.name, 'POST', '/tickets/x/notes', '{"text":');
    expect(declared400.status).toBe(400);
    expect(declaredSchemaAccepts(service, 'addNote', '400', declared400.body)).toBe(true);
    expect(declared400.body).toMatchObject({ status: 400, error: { type: 'invalid_request' } });
    // A schema failure where 400 and 422 are both declared: HTTP's 400.
    expect((await send(episode, service.name, 'POST', '/tickets/x/notes', { text: '' })).status).toBe(400);
    // `default` covers a 400, so a syntax error is not dressed as 422; a schema failure is the declared 422.
    expect((await send(episode, service.name, 'POST', '/tickets', '{"subject":')).status).toBe(400);
    const onlyUnprocessable = await send(episode, service.name, 'PATCH', '/tickets/x', '{"subject":');
    expect(onlyUnprocessable.status).toBe(422);
    expect(declaredSchemaAccepts(service, 'updateTicket', '422', onlyUnprocessable.body)).toBe(true);
    expect(onlyUnprocessable.body).toMatchObject({
      detail: expect.stringMatching(/malformed JSON/),
      errors: [{ field: 'body', message: 'body is not valid JSON' }],
    });
  });

  it('synthesizes tickets from the spec: states and kinds it lists, its examples, never Lorem where it says more', async () => {
    const response = await send(episode, service.name, 'GET', '/tickets');
    const tickets = response.body as Record<string, unknown>[];
    expect(tickets.length).toBeGreaterThan(3);
    expect(new Set(tickets.map((t) => t.state))).toEqual(new Set(['open', 'closed']));
    expect(
      tickets.map((t) => t.kind).every((kind) => ['question', 'incident', 'problem'].includes(kind as string)),
    ).toBe(true);
    const references = tickets.map((t) => t.reference).filter((r) => r !== undefined);
    expect(references.length).toBeGreaterThan(0);
    expect(references.every((r) => /^HD-[1-9]\d{3}$/.test(r as string))).toBe(true);
    // A `$ref` with its own description (OpenAPI 3.1): the description of this use wins.
    expect(new Set(tickets.map((t) => t.priority).filter((p) => p !== undefined))).toEqual(
      new Set(['low', 'normal', 'high']),
    );
    expect(new Set(tickets.map((t) => t.channel).filter((c) => c !== undefined))).toEqual(new Set(['email']));
  });

  it('starts every new ticket in the state the spec gives as its example, and keeps the state a client sends', async () => {
    for (let n = 0; n < 6; n++) {
      const created = await send(episode, service.name, 'POST', '/tickets', JSON.stringify({ subject: `new ${n}` }));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ subject: `new ${n}`, state: 'open' });
      const read = await send(episode, service.name, 'GET', `/tickets/${(created.body as { id: string }).id}`);
      expect(read.body).toMatchObject({ state: 'open' });
    }
    const closed = await send(episode, service.name, 'POST', '/tickets', '{"subject":"done","state":"closed"}');
    expect(closed.body).toMatchObject({ state: 'closed' });
  });
});

describe('error bodies of a payments-style spec (every error is `default`)', () => {
  let episode: Episode;
  let service: ServiceModel;

  beforeAll(async () => ({ episode, service } = await twinOf('payments.yaml')));

  it('reads a validation 400 as the real problem with a type from its enum, the field as param, nothing invented', async () => {
    const response = await send(
      episode,
      service.name,
      'POST',
      '/v1/charges',
      'currency=usd',
      'application/x-www-form-urlencoded',
    );
    expect(response.status).toBe(400);
    expect(declaredSchemaAccepts(service, 'createCharge', 'default', response.body)).toBe(true);
    expect(response.body).toEqual({
      error: {
        type: 'invalid_request_error',
        message: expect.stringMatching(/requires amount/),
        param: 'amount',
        code: 'invalid_request',
      },
    });
  });

  it('answers a missing charge with 404 and the invalid-request type, since the enum has no not-found value', async () => {
    const response = await send(episode, service.name, 'GET', '/v1/charges/ch_missing');
    expect(response.status).toBe(404);
    expect(declaredSchemaAccepts(service, 'getCharge', 'default', response.body)).toBe(true);
    expect(response.body).toEqual({
      error: { type: 'invalid_request_error', message: expect.stringContaining('ch_missing'), code: 'not_found' },
    });
  });

  it('fills a PascalCase Message and an integer StatusCode', async () => {
    const response = await send(episode, service.name, 'POST', '/v1/refunds', {});
    expect(response.status).toBe(400);
    expect(declaredSchemaAccepts(service, 'createRefund', '400', response.body)).toBe(true);
    expect(response.body).toEqual({ Message: expect.stringMatching(/requires charge/), StatusCode: 400 });
  });
});

describe('problem details whose type each status pins by const', () => {
  it('says a 401 or a 405 without another status’s problem type, and names a property the body may not have', async () => {
    const { episode, service } = await twinOf('problem-types.yaml');
    const token = episode.agentTokenFor(service.name) ?? '';
    const call = (method: string, route: string, headers: Record<string, string>, body?: string) =>
      episode.handle(
        service.name,
        { method, path: route, query: new URLSearchParams(), headers, ...(body ? { body: Buffer.from(body) } : {}) },
        `http://twin${route}`,
      );
    const bearer = { authorization: `Bearer ${token}` };
    const refusals = [
      await call('GET', '/notes/n1', {}),
      await call('PUT', '/notes/n1', bearer),
      await call('GET', '/notes/n1', { authorization: 'Bearer forged' }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([401, 405, 401]);
    for (const refusal of refusals) {
      expect(refusal.body).toMatchObject({ title: expect.any(String), status: refusal.status });
      expect(JSON.stringify(refusal.body)).not.toContain('problems/not-found');
    }
    expect(refusals[0].body).toMatchObject({ type: 'about:blank', status: 401 });
    // A status the spec declares keeps its pinned type.
    const missing = await call('GET', '/notes/nope', bearer);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ type: 'https://problems.test/problems/not-found', status: 404 });
    const invalid = await call('POST', '/notes', { ...bearer, 'content-type': 'application/json' }, '{"text":"x"}');
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ type: 'https://problems.test/problems/validation', status: 422 });
    // A property the body may not have is named, so the client knows what to drop.
    const unknown = await call(
      'POST',
      '/notes',
      { ...bearer, 'content-type': 'application/json' },
      '{"text":"fine","colour":"red"}',
    );
    expect(unknown.status).toBe(422);
    expect((unknown.body as { detail: string }).detail).toMatch(/\bcolour\b/);
  });
});

describe('error answers of an operation that answers in a page', () => {
  it('refuses a bad request in the page type it declares, with the reason escaped in it, not in JSON', async () => {
    const { episode, service } = await twinOf('consent-page.yaml');
    const refused = await episode.handle(
      service.name,
      { method: 'GET', path: '/authorize', query: new URLSearchParams('response_type=<token>'), headers: {} },
      'http://twin/authorize',
    );
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toBe('text/html');
    expect(String(refused.body)).toContain('response_type');
    expect(String(refused.body)).toContain('&lt;token&gt;');
  });
});
