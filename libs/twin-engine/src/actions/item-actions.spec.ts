import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';

import { Episode } from '../episode';
import { InMemoryEpisodeStore } from '../in-memory-episode-store';
import { TwinRequest, TwinResponse } from '../twin-http';
import { StaticStackSource, TwinEngine } from '../twin-engine';
import { ItemActions } from './item-actions';

const fixture = path.join(__dirname, '../../../../test/fixtures/fidelity/actions/helpdesk/helpdesk.yaml');

const json = (response: TwinResponse): Record<string, unknown> =>
  (response.text !== undefined ? JSON.parse(response.text) : response.body) as Record<string, unknown>;

/** Real: ingestion of the test spec, the twin engine and its episode; the event store is the in-memory one. */
describe(ItemActions.name, () => {
  let engine: TwinEngine;
  let episode: Episode;

  const call = (method: string, at: string, body?: unknown): Promise<TwinResponse> => {
    const request: TwinRequest = {
      method,
      path: at,
      query: new URLSearchParams(),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
    };
    return episode.handle('helpdesk', request, `http://twin${at}`);
  };

  const openTicket = async (): Promise<number> => {
    const made = await call('POST', '/tickets', { subject: 'Printer on fire' });
    expect(made.status).toBe(201);
    const id = json(made).id as number;
    const changed = await call('PATCH', `/tickets/${id}`, { priority: 'normal' });
    expect(changed.status).toBe(200);
    return id;
  };

  beforeAll(async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: fixture });
    engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 3 });
  });

  it("answers an action on a ticket that does not exist with the spec's 404", async () => {
    const before = (await engine.events('test', episode.id)).length;
    const missing = await call('POST', '/tickets/987654/escalate');
    expect(missing.status).toBe(404);
    // The spec's 404 shape (its values are the response factory's business).
    expect(missing.headers['content-type']).toBe('application/problem+json');
    expect(Object.keys(json(missing))).toEqual(expect.arrayContaining(['type', 'title', 'status']));
    expect(await engine.events('test', episode.id)).toHaveLength(before);
  });

  it('changes the stored state the verb names and answers with the stored record', async () => {
    const id = await openTicket();
    const escalated = await call('POST', `/tickets/${id}/escalate`);
    expect(escalated.status).toBe(200);
    expect(json(escalated)).toMatchObject({ id, subject: 'Printer on fire', priority: 'normal', status: 'escalated' });
    expect(json(await call('GET', `/tickets/${id}`))).toMatchObject({ status: 'escalated', priority: 'normal' });

    const closed = json(await call('POST', `/tickets/${id}/close`, { resolution: 'toner replaced' }));
    expect(closed).toMatchObject({ status: 'closed', resolution: 'toner replaced' });
    expect(closed.closed_at).toBe(closed.updated_at);
    expect(json(await call('GET', `/tickets/${id}`))).toMatchObject({ status: 'closed', resolution: 'toner replaced' });
  });

  it('keeps the state the verb names over a state the caller writes into the body', async () => {
    const id = await openTicket();
    const closed = json(await call('POST', `/tickets/${id}/close`, { status: 'open', resolution: 'done' }));
    expect(closed).toMatchObject({ status: 'closed', resolution: 'done' });
  });

  it("takes the response example's and the description's states", async () => {
    const id = await openTicket();
    expect(json(await call('POST', `/tickets/${id}/triage`))).toMatchObject({ priority: 'high', status: 'open' });
    expect(json(await call('POST', `/tickets/${id}/archive`))).toMatchObject({ archived: true, status: 'closed' });
  });

  it('tells each change as a domain event named for the verb, beside the update', async () => {
    const id = await openTicket();
    await call('POST', `/tickets/${id}/escalate`);
    const names = (await engine.events('test', episode.id))
      .map((e) => e.event)
      .filter((e) => e.type === 'domain' && (e.data as { id?: unknown }).id === String(id))
      .map((e) => (e as { name: string }).name);
    expect(names.slice(-2)).toEqual(['helpdesk.tickets.escalate', 'helpdesk.tickets.updated']);
  });
});
