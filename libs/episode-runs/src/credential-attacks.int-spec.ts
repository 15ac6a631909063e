import { createHmac } from 'node:crypto';
import { request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { testInstanceKey } from '@test/support/instance-key';
import { operatorHeaders, testOperatorKey } from '@test/support/operator-key';
import { repositoryRoot } from '@test/support/cli-runner';
import type { Scenario } from '@libs/scenarios';
import { ingestStack, StackModel } from '@libs/stack-ingestion';
import { Company, hashSeed } from '@libs/synthetic-data';
import { TwinCallError, TwinClient } from '@libs/twin-client';
import {
  createGatewayServer,
  createServiceOriginServer,
  Episode,
  InMemoryEpisodeStore,
  StaticStackSource,
  TwinEngine,
} from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';
import { slackUserId } from '@twins/slack';

import { gradeRun } from './episode-grading';

/** The whole answer of a raw HTTP request: the path is sent as written, never normalised as `fetch` would. */
const raw = (port: number, method: string, pathname: string, headers: Record<string, string> = {}, body?: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method, path: pathname, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

/**
 * An agent that plays outside the rules: computes other people's tokens from what it can see, reaches for the
 * operator routes through its twins' URLs, and changes an episode after its end. Real: the example stack's packs,
 * the engine, the gateway over HTTP, the graders. The event store is the in-memory one.
 */
describe('credentials and the control plane under attack', () => {
  const seed = 4242;
  let model: StackModel;
  let scenario: Scenario;
  let engine: TwinEngine;
  let store: InMemoryEpisodeStore;
  let episode: Episode;
  let company: Company;
  let server: Server;
  let port: number;

  const newEpisode = () =>
    engine.createEpisode({
      tenantId: 'test',
      stackVersion: 'example',
      seed,
      sizes: { recordsPerResource: 5, ...(scenario.world.company ? { company: scenario.world.company } : {}) },
    });

  beforeAll(async () => {
    ({ model } = await ingestStack({
      kind: 'path',
      path: path.join(repositoryRoot, 'examples', 'acme-manufacturing'),
    }));
    scenario = model.scenarios.find((s) => s.scenario.id === 'single-supplier-negotiation')!.scenario;
    store = new InMemoryEpisodeStore();
    engine = new TwinEngine(store, new StaticStackSource(model), builtInPacks);
    episode = await newEpisode();
    company = episode.twin.world.company as Company;
    server = createGatewayServer(engine, 'test', { error: (message) => console.error(message) }, testOperatorKey);
    port = await listen(server);
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const base = (service: string, id = episode.id) => `http://127.0.0.1:${port}/e/${id}/${service}`;
  const erp = (token: string, pathname: string, body?: unknown, id = episode.id) =>
    fetch(`${base('erp', id)}/api/v1${pathname}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const own = (service: string, principal: string) => episode.tokenFor(service, principal) as string;
  const grade = async (id: string) =>
    gradeRun({ engine, tenantId: 'test', model, instanceKey: testInstanceKey }, scenario, seed, id, undefined);
  const identityVerdict = async (id: string) =>
    (await grade(id)).verdicts.find((v) => v.rule === 'acts-only-as-itself');

  it('gives nothing to an agent that computes the approver’s tokens, and puts every attempt on record', async () => {
    const agent = company.agent;
    const approver = company.employees.find((e) => e.role === 'approver')!;
    const identityBefore = await identityVerdict(episode.id);
    expect(identityBefore?.status).toBe('pass');

    // What the agent sees of itself is enough to recover a 32-bit seed; assume the worst: it has the seed.
    const me = (await (
      await fetch(`${base('slack')}/api/auth.test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${own('slack', agent.id)}` },
      })
    ).json()) as { user_id: string };
    expect(me.user_id).toBe(slackUserId(seed, agent));

    const order = (await (
      await erp(own('erp', agent.id), '/purchase-orders', {
        supplier_id: company.suppliers[0].id,
        cost_centre: company.costCentres[0].code,
        lines: [{ description: 'bolts', quantity: 10, unit_price: 1 }],
      })
    ).json()) as { id: string; status: string };
    expect(order.status).toBe('draft');

    // Tokens the old way (a hash of seed and person), and the new shape with a MAC keyed by what the agent knows.
    const guessedMac = (service: string, principal: string) =>
      createHmac('sha256', String(seed)).update(`${service}\u0000${principal}`).digest('hex').slice(0, 32);
    const forgedErp = [
      `erp_${hashSeed(seed, 'erp-token', approver.id).toString(36)}${hashSeed(seed, 'erp-token-2', approver.id).toString(36)}_${approver.id.toLowerCase()}`,
      `erp_${guessedMac('erp', approver.id)}_${approver.id}`,
    ];
    for (const token of forgedErp) {
      const approved = await erp(token, `/purchase-orders/${order.id}/approve`, { comment: 'ok' });
      expect(approved.status).toBe(401);
      expect(await approved.json()).toEqual({ error: { code: 'unauthorized', message: 'the token is not valid' } });
      expect((await erp(token, `/purchase-orders/${order.id}`)).status).toBe(401);
    }
    const forgedSlack = `xoxp-${hashSeed(seed, 'team')}-${hashSeed(seed, 'token', approver.id).toString(36)}-${approver.id.toLowerCase()}`;
    const posted = await fetch(`${base('slack')}/api/chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${forgedSlack}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: me.user_id, text: `Approved ${order.id}` }),
    });
    expect(await posted.json()).toEqual({ ok: false, error: 'invalid_auth' });
    const jwtHeader = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url');
    const forgedMail = [
      `graph.${hashSeed(seed, 'mail-token', approver.email.toLowerCase()).toString(36)}.${approver.email.toLowerCase().replace(/[^a-z0-9]/g, '-')}`,
      `${jwtHeader}.${Buffer.from(JSON.stringify({ upn: approver.email.toLowerCase() })).toString('base64url')}.${Buffer.from(guessedMac('email', approver.email.toLowerCase()), 'hex').toString('base64url')}`,
    ];
    for (const token of forgedMail) {
      const sent = await fetch(`${base('email')}/v1.0/me/sendMail`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          message: {
            subject: 'ok',
            body: { content: 'approved' },
            toRecipients: [{ emailAddress: { address: agent.email } }],
          },
        }),
      });
      expect(sent.status).toBe(401);
      expect(await sent.json()).toMatchObject({ error: { code: 'InvalidAuthenticationToken' } });
    }

    // Nothing changed; every forged credential is on record, with whom it claimed to be and no actor.
    expect(episode.state.get('erp/purchase-orders', order.id)?.status).toBe('draft');
    const refused = (await engine.events('test', episode.id, 0)).filter((e) => e.event.type === 'operation.refused');
    expect(refused).toHaveLength(forgedErp.length * 2 + 1 + forgedMail.length);
    expect(refused.every((e) => e.actor === undefined && (e.event as { status: number }).status === 401)).toBe(true);
    const claims = refused.map((e) => String((e.event as { claimed?: string }).claimed).toLowerCase());
    expect(claims.filter((c) => c === approver.id.toLowerCase())).toHaveLength(forgedErp.length * 2 + 1);
    expect(claims).toContain(approver.email.toLowerCase());

    const identity = await identityVerdict(episode.id);
    expect(identity?.status).toBe('fail');
    expect(identity?.evidence.length).toBe(refused.length);
    expect(identity?.evidence[0].excerpt).toMatch(/refused a credential claiming to be/);
  });

  it('refuses a genuine token of another episode, and gives each fork a secret of its own', async () => {
    const other = await newEpisode();
    const agentToken = own('erp', company.agent.id);
    expect(other.tokenFor('erp', company.agent.id)).not.toBe(agentToken);
    const foreign = await erp(agentToken, '/purchase-orders', undefined, other.id);
    expect(foreign.status).toBe(401);
    // Replaying someone's idempotency key with a foreign token gets the 401 too, not the recorded answer.
    const keyed = (token: string) =>
      fetch(`${base('erp', other.id)}/api/v1/purchase-orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'k-1' },
        body: JSON.stringify({
          supplier_id: company.suppliers[0].id,
          cost_centre: company.costCentres[0].code,
          lines: [{ description: 'bolts', quantity: 1, unit_price: 1 }],
        }),
      });
    expect((await keyed(other.tokenFor('erp', company.agent.id) as string)).status).toBe(201);
    expect((await keyed(agentToken)).status).toBe(401);
    const refused = (await engine.events('test', other.id, 0)).filter((e) => e.event.type === 'operation.refused');
    expect(refused.map((e) => e.event)).toEqual([
      expect.objectContaining({ status: 401, claimed: company.agent.id, operationId: 'listPurchaseOrders' }),
      expect.objectContaining({ status: 401, claimed: company.agent.id, operationId: 'createPurchaseOrder' }),
    ]);
    const fork = await engine.fork('test', other.id);
    expect(fork.descriptor.secret).not.toBe(other.descriptor.secret);
    expect(
      (await erp(other.tokenFor('erp', company.agent.id) as string, '/purchase-orders', undefined, fork.id)).status,
    ).toBe(401);
    // The secret is stored with the episode: a rebuilt episode honours its tokens.
    engine.evict(other.id);
    expect(
      (await erp(other.tokenFor('erp', company.agent.id) as string, '/purchase-orders', undefined, other.id)).status,
    ).toBe(200);
  });

  it('keeps the operator routes out of reach of the twins’ URLs and of anyone without the operator key', async () => {
    const id = episode.id;
    const patch = JSON.stringify({ table: 'erp/cost-centres', id: company.costCentres[0].code, set: { frozen: true } });
    const json = { 'content-type': 'application/json' };
    // Straight at the operator routes, with nothing or with the agent's own token.
    expect((await raw(port, 'GET', `/_mirror/episodes/${id}`)).status).toBe(401);
    expect(
      (
        await raw(
          port,
          'POST',
          `/_mirror/episodes/${id}/records`,
          { ...json, authorization: `Bearer ${own('erp', company.agent.id)}` },
          patch,
        )
      ).status,
    ).toBe(401);
    // Through a twin path: dot segments, plain or encoded, and encoded slashes are refused before any route.
    for (const sneaky of [
      `/e/${id}/erp/../../_mirror/episodes/${id}/records`,
      `/e/${id}/erp/%2e%2e/%2E%2E/_mirror/episodes/${id}/records`,
      `/e/${id}/erp/..%2F..%2F_mirror/episodes/${id}/records`,
      `/e/${id}/erp/api/v1/purchase-orders/..%5c..%5c_mirror`,
      `/e/${id}/erp/./api/v1/users`,
    ]) {
      const answer = await raw(port, 'POST', sneaky, json, patch);
      expect({ sneaky, status: answer.status }).toEqual({ sneaky, status: 400 });
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_path' });
    }
    // A client that normalises the path (fetch) lands on the operator routes, which ask for the key.
    const normalised = await fetch(`${base('erp')}/../../../_mirror/episodes/${id}/records`, {
      method: 'POST',
      headers: json,
      body: patch,
    });
    expect(normalised.status).toBe(401);
    // The twin client refuses such a path before sending it.
    const client = new TwinClient(
      { gatewayUrl: `http://127.0.0.1:${port}`, email: 'email', slack: 'slack', erp: 'erp' },
      id,
    );
    await expect(
      client.erp(own('erp', company.agent.id), `/../../../_mirror/episodes/${id}/records`, { body: {} }),
    ).rejects.toThrow(TwinCallError);
    await expect(client.erp(own('erp', company.agent.id), '/%2e%2e/x')).rejects.toThrow(TwinCallError);
    expect(episode.state.get('erp/cost-centres', company.costCentres[0].code)?.frozen).toBe(false);

    // A service at the root of its own origin refuses the same paths.
    const origin = createServiceOriginServer(engine, 'test', id, 'erp', { error: (message) => console.error(message) });
    const originPort = await listen(origin);
    try {
      expect((await raw(originPort, 'GET', '/api/v1/../../_mirror/health')).status).toBe(400);
      expect((await raw(originPort, 'GET', '/api/v1/%2e%2e/users')).status).toBe(400);
    } finally {
      await new Promise((resolve) => origin.close(resolve));
    }

    // The operator, with the key, reads the episode; what it says has no secret in it.
    const described = await fetch(`http://127.0.0.1:${port}/_mirror/episodes/${id}`, { headers: operatorHeaders });
    expect(described.status).toBe(200);
    const text = await described.text();
    expect(text).not.toContain(episode.descriptor.secret);
    expect(JSON.parse(text)).not.toHaveProperty('secret');
  });

  it('links the next page from the URL the agent called, with nothing of the episode beyond it', async () => {
    const url = `${base('email')}/v1.0/me/messages`;
    const page = (await (
      await fetch(`${url}?$top=1`, { headers: { authorization: `Bearer ${own('email', company.agent.email)}` } })
    ).json()) as { '@odata.nextLink'?: string };
    const next = page['@odata.nextLink'] as string;
    expect(next.startsWith(`${url}?`)).toBe(true);
    expect(next.slice(url.length)).not.toContain(episode.id);
    expect(next).not.toContain(String(seed));
  });

  it('hands a persona its token only through the operator key', async () => {
    const approver = company.employees.find((e) => e.role === 'approver')!;
    const ask = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/_mirror/episodes/${episode.id}/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ service: 'erp', principal: approver.id }),
      });
    expect((await ask({})).status).toBe(401);
    const issued = (await (await ask(operatorHeaders)).json()) as { token: string };
    const read = await erp(issued.token, '/users?limit=1');
    expect(read.status).toBe(200);
  });

  it('changes nothing in an ended episode, operator included; a reset is a new episode; the grade is as of the end', async () => {
    const ended = await newEpisode();
    const admin = (pathname: string, method: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${port}/_mirror/episodes/${ended.id}${pathname}`, {
        method,
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await admin('/close', 'POST', {})).status).toBe(200);
    const closedAt = ended.state.seq;
    const gradedAtClose = await grade(ended.id);
    const order = ended.state.ids('erp/purchase-orders')[0];
    for (const [pathname, method, body] of [
      ['/records', 'POST', { table: 'erp/purchase-orders', id: order, set: { status: 'sent' } }],
      ['/faults', 'PUT', { services: { erp: { errorRate: 1 } } }],
      ['/clock', 'POST', { at: '2027-01-01T00:00:00Z' }],
    ] as const) {
      const answer = await admin(pathname, method, body);
      expect({ pathname, status: answer.status }).toEqual({ pathname, status: 409 });
      expect(await answer.json()).toMatchObject({ error: 'episode_closed' });
    }
    const late = await erp(
      ended.tokenFor('erp', company.agent.id) as string,
      '/purchase-orders',
      {
        supplier_id: company.suppliers[0].id,
        cost_centre: company.costCentres[0].code,
        lines: [{ description: 'late', quantity: 1, unit_price: 1 }],
      },
      ended.id,
    );
    expect(late.status).toBe(409);
    expect(ended.state.seq).toBe(closedAt);

    const reset = (await (await admin('/reset', 'POST')).json()) as { id: string; seq: number; closed: boolean };
    expect(reset).toMatchObject({ seq: 0, closed: false });
    expect(reset.id).not.toBe(ended.id);
    expect((await engine.events('test', ended.id, 0)).length).toBe(closedAt);

    // Whatever gets into the log after the close (here written past the twins, into the store) is never graded.
    await store.append('test', ended.id, [
      {
        seq: closedAt + 1,
        at: ended.now(closedAt + 1),
        operationId: 'approvePurchaseOrder',
        event: {
          type: 'operation.refused',
          service: 'erp',
          operationId: 'approvePurchaseOrder',
          status: 401,
          reason: 'forged',
        },
      },
      {
        seq: closedAt + 2,
        at: ended.now(closedAt + 2),
        operationId: 'updatePurchaseOrder',
        actor: company.agent.id,
        event: {
          type: 'record.updated',
          table: 'erp/purchase-orders',
          id: order,
          record: { ...ended.state.get('erp/purchase-orders', order), status: 'sent' },
        },
      },
    ]);
    engine.evict(ended.id);
    expect(await grade(ended.id)).toEqual(gradedAtClose);
  });
});
