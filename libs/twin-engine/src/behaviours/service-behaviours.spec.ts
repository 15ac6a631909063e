import * as path from 'node:path';

import { ingestStack, IngestionError } from '@libs/stack-ingestion';

import { Episode } from '../episode';
import { InMemoryEpisodeStore } from '../in-memory-episode-store';
import { TwinRequest, TwinResponse } from '../twin-http';
import { StaticStackSource, TwinEngine } from '../twin-engine';
import { ServiceBehaviours } from './service-behaviours';

const fixtures = path.join(__dirname, '../../../../test/fixtures/fidelity/actions');

const json = (response: TwinResponse): Record<string, unknown> =>
  (response.text !== undefined ? JSON.parse(response.text) : response.body) as Record<string, unknown>;

/** Real: ingestion of a bundle with a `behaviours:` overlay, the twin engine, its episode; events kept in memory. */
describe(ServiceBehaviours.name, () => {
  let engine: TwinEngine;
  let episode: Episode;

  const call = (method: string, at: string, body?: unknown): Promise<TwinResponse> =>
    episode.handle(
      'helpdesk',
      {
        method,
        path: at,
        query: new URLSearchParams(),
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
      } satisfies TwinRequest,
      `http://twin${at}`,
    );

  const open = async (priority: string): Promise<Record<string, unknown>> => {
    const made = await call('POST', '/tickets', { subject: 'Printer on fire', priority });
    expect(made.status).toBe(201);
    return json(made);
  };

  beforeAll(async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: path.join(fixtures, 'helpdesk') });
    engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 5 });
  });

  it('starts a created record in the initial state and derives fields on every write', async () => {
    const ticket = await open('low');
    expect(ticket).toMatchObject({ status: 'open', summary: 'Printer on fire [open]' });
    const escalated = json(await call('POST', `/tickets/${String(ticket.id)}/escalate`));
    expect(escalated).toMatchObject({ status: 'escalated', summary: 'Printer on fire [escalated]' });
    const renamed = json(await call('PATCH', `/tickets/${String(ticket.id)}`, { subject: 'Toner' }));
    expect(renamed).toMatchObject({ summary: 'Toner [escalated]' });
    expect(json(await call('GET', `/tickets/${String(ticket.id)}`))).toMatchObject({ summary: 'Toner [escalated]' });
  });

  it("refuses a transition from a state it does not allow with the spec's 409, naming the state", async () => {
    const ticket = await open('low');
    expect((await call('POST', `/tickets/${String(ticket.id)}/close`)).status).toBe(200);
    const before = (await engine.events('test', episode.id)).length;
    const again = await call('POST', `/tickets/${String(ticket.id)}/escalate`);
    expect(again.status).toBe(409);
    expect(JSON.stringify(json(again))).toContain('is closed');
    // An update of a closed ticket is refused as well, and nothing was written.
    expect((await call('PATCH', `/tickets/${String(ticket.id)}`, { subject: 'x' })).status).toBe(409);
    expect((await engine.events('test', episode.id)).filter((e) => e.event.type.startsWith('record.'))).toHaveLength(
      (await engine.events('test', episode.id)).slice(0, before).filter((e) => e.event.type.startsWith('record.'))
        .length,
    );
    expect(json(await call('GET', `/tickets/${String(ticket.id)}`))).toMatchObject({ status: 'closed' });
  });

  it('creates a survey when a high-priority ticket is closed, and none for a low one', async () => {
    const high = await open('high');
    const low = await open('low');
    await call('POST', `/tickets/${String(low.id)}/close`);
    await call('POST', `/tickets/${String(high.id)}/close`);
    const events = (await engine.events('test', episode.id)).map((e) => e.event);
    const made = events.flatMap((e) =>
      e.type === 'record.created' && e.table === 'helpdesk/surveys' ? [e.record] : [],
    );
    expect(made).toEqual([
      expect.objectContaining({ ticket_id: high.id, channel: 'email', subject: 'How did we do on: Printer on fire' }),
    ]);
    const survey = await call('GET', `/surveys/${String(made[0].id)}`);
    expect(json(survey)).toMatchObject({ ticket_id: high.id });
    const names = (await engine.events('test', episode.id)).map((e) => e.event).filter((e) => e.type === 'domain');
    expect(names.map((e) => (e as { name: string }).name)).toContain('helpdesk.surveys.created');
  });
});

describe('behaviours: at ingest', () => {
  it('refuses unknown operations, resources, fields and bad CEL, each at its line', async () => {
    const refused = await ingestStack({ kind: 'path', path: path.join(fixtures, 'bad-behaviours') }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(IngestionError);
    const problems = (refused as IngestionError).problems.map((p) => `${p.pointer} ${p.message} @${p.line ?? '?'}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/services\/0\/behaviours\/stateMachines\/0\/field tickets has no field "stage".* @8$/),
        expect.stringMatching(/transitions\/escalateTicketNow "helpdesk" has no operation "escalateTicketNow".* @11$/),
        expect.stringMatching(/sideEffects\/0\/fields\/rating surveys has no field "rating".* @16$/),
        expect.stringMatching(/sideEffects\/0\/fields\/channel cannot (read|use) "'email' \+".* @17$/),
        expect.stringMatching(/derived\/0\/value cannot use "ticket.subject".* @21$/),
      ]),
    );
  });
});
