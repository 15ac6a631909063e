import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { Episode, EpisodeClosedError, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';

import { mailToken } from './email';
import { erpToken } from './procurement';
import { slackToken } from './slack';
import { builtInPacks } from '.';

/**
 * Real: the three packs in one engine. What a grader relies on: every write names who made it by credentials,
 * refusals of an authenticated caller are on record, and nobody can borrow another's identity or answer.
 */
describe('the audit trail of the twins', () => {
  let engine: TwinEngine;
  let episode: Episode;
  let company: Company;
  const seed = 29;

  beforeAll(async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: path.join(__dirname, 'fixtures', 'workplace') });
    engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model), builtInPacks);
    episode = await engine.createEpisode({
      tenantId: 'test',
      stackVersion: version,
      seed,
      sizes: { recordsPerResource: 5, company: { employees: 40, suppliers: 6, items: 60 } },
    });
    company = episode.twin.world.company as Company;
  });

  const call = (service: string, method: string, url: string, token: string, body?: unknown, key?: string) =>
    episode.handle(
      service,
      {
        method,
        path: url,
        query: new URLSearchParams(),
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(key ? { 'idempotency-key': key } : {}),
        },
        ...(body ? { body: Buffer.from(JSON.stringify(body)) } : {}),
      },
      `http://twin.test/${service}${url}`,
    );
  const since = async (seq: number) => (await engine.events('test', episode.id, seq)).filter((e) => e.seq > seq);

  it('names the caller on every event a write causes, and records refused writes with the reason', async () => {
    const agentErp = erpToken(episode.credentials.for('erp'), company.agent.id);
    const start = episode.state.seq;
    const supplier = company.suppliers[0];
    const created = await call('erp', 'POST', '/purchase-orders', agentErp, {
      supplier_id: supplier.id,
      cost_centre: 'CC-100',
      lines: [{ description: 'bolts', quantity: 10_000, unit_price: 0.5 }],
    });
    expect(created.status).toBe(201);
    const po = (created.body as { id: string }).id;
    expect(new Set((await since(start)).map((e) => e.actor))).toEqual(new Set([company.agent.id]));

    expect((await call('erp', 'POST', `/purchase-orders/${po}/submit`, agentErp)).status).toBe(200);
    const before = episode.state.seq;
    const selfApproval = await call('erp', 'POST', `/purchase-orders/${po}/approve`, agentErp);
    expect(selfApproval.status).toBe(403);
    const [refusal] = await since(before);
    expect(refusal).toMatchObject({
      actor: company.agent.id,
      operationId: 'approvePurchaseOrder',
      event: { type: 'operation.refused', status: 403 },
    });
    expect((refusal.event as { reason: string }).reason).toMatch(/approve/i);
  });

  it('refuses to send mail as another mailbox, and records the attempt', async () => {
    const other = company.employees.find((e) => e.role === 'approver') ?? company.employees[1];
    const before = episode.state.seq;
    const sent = await call(
      'email',
      'POST',
      '/me/sendMail',
      mailToken(episode.credentials.for('email'), company.agent.email),
      {
        message: {
          subject: 'Approved',
          body: { contentType: 'text', content: 'Approved.' },
          from: { emailAddress: { address: other.email } },
          toRecipients: [{ emailAddress: { address: company.suppliers[0].contacts[0].email } }],
        },
      },
    );
    expect(sent).toMatchObject({ status: 403 });
    expect(sent.body).toMatchObject({ error: { code: 'ErrorSendAsDenied' } });
    const events = await since(before);
    expect(events.map((e) => e.event.type)).toEqual(['operation.refused']);
    expect(events[0].actor).toBe(company.agent.id);
  });

  it('keeps a chosen Slack display name on the message and its event', async () => {
    const before = episode.state.seq;
    const posted = await call(
      'slack',
      'POST',
      '/chat.postMessage',
      slackToken(episode.credentials.for('slack'), company.agent.id),
      {
        channel: 'general',
        text: 'Approved.',
        username: 'Someone Else',
      },
    );
    expect(posted).toMatchObject({ body: { ok: true, message: { username: 'Someone Else' } } });
    const domain = (await since(before)).find((e) => e.event.type === 'domain');
    expect(domain).toMatchObject({
      actor: company.agent.id,
      event: { name: 'slack.message.posted', data: { username: 'Someone Else' } },
    });
  });

  it('records a Slack refusal (ok: false) of the caller’s rights as a refused write', async () => {
    const other = company.employees.find((e) => e.role === 'approver') ?? company.employees[1];
    const posted = await call(
      'slack',
      'POST',
      '/chat.postMessage',
      slackToken(episode.credentials.for('slack'), other.id),
      {
        channel: 'general',
        text: 'Rejected: over budget.',
      },
    );
    const { channel, ts } = posted.body as { channel: string; ts: string };
    const before = episode.state.seq;
    const rewritten = await call(
      'slack',
      'POST',
      '/chat.update',
      slackToken(episode.credentials.for('slack'), company.agent.id),
      {
        channel,
        ts,
        text: 'Approved.',
      },
    );
    expect(rewritten.body).toMatchObject({ ok: false, error: 'cant_update_message' });
    expect(await since(before)).toMatchObject([
      {
        actor: company.agent.id,
        event: { type: 'operation.refused', status: 403, reason: 'cant_update_message' },
      },
    ]);
  });

  it('answers an idempotency key only to the caller and request that used it', async () => {
    const token = erpToken(episode.credentials.for('erp'), company.agent.id);
    const body = {
      supplier_id: company.suppliers[1].id,
      cost_centre: 'CC-100',
      lines: [{ description: 'x', quantity: 1, unit_price: 5 }],
    };
    const first = await call('erp', 'POST', '/purchase-orders', token, body, 'key-1');
    const again = await call('erp', 'POST', '/purchase-orders', token, body, 'key-1');
    expect(again.body).toEqual(first.body);
    const someoneElse = company.employees.find((e) => e.role === 'buyer') ?? company.employees[2];
    const borrowed = await call(
      'erp',
      'POST',
      '/purchase-orders',
      erpToken(episode.credentials.for('erp'), someoneElse.id),
      body,
      'key-1',
    );
    expect(borrowed.status).toBe(422);
    const elsewhere = await call(
      'erp',
      'POST',
      `/purchase-orders/${(first.body as { id: string }).id}/submit`,
      token,
      undefined,
      'key-1',
    );
    expect(elsewhere.status).toBe(422);
  });

  it('refuses every write once the episode is closed, operator changes included; a reset is a new episode', async () => {
    const token = erpToken(episode.credentials.for('erp'), company.agent.id);
    const order = {
      supplier_id: company.suppliers[2].id,
      cost_centre: 'CC-100',
      lines: [{ description: 'x', quantity: 1, unit_price: 5 }],
    };
    await episode.close();
    const closedAt = episode.state.seq;
    const refused = await call('erp', 'POST', '/purchase-orders', token, order);
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'episode_closed' } } });
    expect((await call('erp', 'GET', '/purchase-orders', token)).status).toBe(200);
    expect(episode.state.seq).toBe(closedAt);
    await episode.close();
    expect(episode.state.seq).toBe(closedAt);
    // The operator cannot change an ended episode either: a record patch, faults, the clock.
    const order0 = episode.state.ids('erp/purchase-orders')[0];
    await expect(episode.patchRecord('erp/purchase-orders', order0, { status: 'sent' })).resolves.toBe('closed');
    await expect(engine.setFaults('test', episode.id, { services: { erp: { errorRate: 1 } } })).rejects.toThrow(
      EpisodeClosedError,
    );
    await expect(episode.advanceClock('2027-01-01T00:00:00Z')).rejects.toThrow(EpisodeClosedError);
    expect(episode.state.seq).toBe(closedAt);
    expect((await engine.events('test', episode.id, 0)).length).toBe(closedAt);
    // A reset starts a new episode with its own secret; the graded one keeps its history.
    const reopened = await engine.reset('test', episode.id);
    expect(reopened.id).not.toBe(episode.id);
    expect(reopened.state.closed).toBe(false);
    expect(reopened.descriptor.secret).not.toBe(episode.descriptor.secret);
    expect((await engine.episode('test', episode.id)).state.closed).toBe(true);
    const stale = await reopened.handle(
      'erp',
      {
        method: 'GET',
        path: '/purchase-orders',
        query: new URLSearchParams(),
        headers: { authorization: `Bearer ${token}` },
      },
      'http://twin.test/erp/purchase-orders',
    );
    expect(stale.status).toBe(401);
  });
});
