import { AddressInfo } from 'node:net';

import { testOperatorKey } from '@test/support/operator-key';
import { writeBundle } from '@test/support/bundle-fixtures';
import { IngestionError, ingestStack } from '@libs/stack-ingestion';
import { createGatewayServer, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { instantiate } from '@libs/scenarios';
import { synthesizeCompany } from '@libs/synthetic-data';

import { judgeMilestones, judgeOutcome } from './outcome-judge';
import { twinOutcomeSources } from './outcome-sources';

/** A client's helpdesk, spec only: tickets with a status, a refund and who asked. */
const helpdesk = `openapi: 3.0.3
info: { title: Helpdesk, version: '1' }
paths:
  /tickets:
    get:
      operationId: listTickets
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: array, items: { $ref: '#/components/schemas/Ticket' } }
    post:
      operationId: createTicket
      requestBody:
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Ticket' }
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Ticket' }
  /tickets/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string } }
    get:
      operationId: getTicket
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Ticket' }
components:
  schemas:
    Ticket:
      type: object
      properties:
        id: { type: string }
        status: { type: string, enum: [open, solved] }
        refund: { type: number }
        requester_email: { type: string }
`;

const scenario = (
  success: string,
  milestone = 'events.exists(e, e.type == "record.created" && e.table == "tickets")',
) => `
id: refund-dispute
title: Settle a disputed invoice with a refund within the cap
variables:
  refund_cap: { int: [150, 250], step: 50 }
hidden:
  patient_email: { identifier: 'pat@example.org' }
task:
  goal: Settle the dispute of {{patient_email}}.
  tools: [helpdesk]
parties:
  noise: { persona: background-traffic, channels: [general], messages: 0 }
success:
  - kind: predicate
    description: a solved ticket of the patient's with a refund within the cap
    when: >-
      ${success}
milestones:
  ticket_opened: '${milestone}'
horizon: { max_agent_actions: 20, business_days: 5 }
`;

const solved =
  'services.helpdesk.tickets.exists(t, t.status == "solved" && t.requester_email == patient_email && t.refund <= refund_cap)';

const bundle = (scenarioText: string) =>
  writeBundle({
    'mirror.yaml':
      'name: clinic\nservices:\n  - { name: helpdesk, spec: helpdesk.yaml }\nscenarios: [scenarios/dispute.yaml]\n',
    'helpdesk.yaml': helpdesk,
    'scenarios/dispute.yaml': scenarioText,
  });

/**
 * Real: ingestion, the twin engine behind the gateway's HTTP, the operator routes the judge reads through. Episodes
 * live in memory (the PostgreSQL store has its own tests).
 */
describe('predicate outcomes judged from the twins', () => {
  let stop: (() => Promise<void>) | undefined;
  afterAll(async () => stop?.());

  it('judges a predicate success false, then true once the twin records a matching ticket', async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: bundle(scenario(solved)) });
    const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    const server = createGatewayServer(engine, 'test', { error: () => undefined }, testOperatorKey);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stop = () => new Promise((resolve) => server.close(() => resolve()));
    const gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 2 });
    // A stack of the client's own specs has no pack to seed a company: the scenario's people come from its own.
    const company = synthesizeCompany(0);
    const instance = instantiate(model.scenarios[0].scenario, 2, company);
    const agent = { employeeId: company.agent.id, email: company.agent.email, slackUser: 'U0' };
    const sources = twinOutcomeSources({
      services: { gatewayUrl, email: 'email', slack: 'slack', erp: 'erp' },
      episodeId: episode.id,
      operatorKey: testOperatorKey,
      agent,
    });
    const subject = { instance, agent, startAt: episode.now(), currency: 'EUR' };
    const cap = instance.values.refund_cap as number;
    const create = (ticket: Record<string, unknown>) =>
      fetch(`${gatewayUrl}/e/${episode.id}/helpdesk/tickets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ticket),
      }).then((r) => r.status);

    // The synthesized world holds tickets, none of them this patient's.
    await expect(judgeOutcome(sources, subject)).resolves.toEqual(expect.objectContaining({ succeeded: false }));
    await expect(judgeMilestones(sources, subject)).resolves.toEqual({
      ticket_opened: { met: false, reason: 'the predicate does not hold' },
    });

    // Over the cap, then another person's: still not the task.
    expect(await create({ status: 'solved', refund: cap + 1, requester_email: 'pat@example.org' })).toBe(201);
    expect(await create({ status: 'solved', refund: cap, requester_email: 'someone@example.org' })).toBe(201);
    await expect(judgeOutcome(sources, subject)).resolves.toEqual({
      succeeded: false,
      reason: "a solved ticket of the patient's with a refund within the cap: the predicate does not hold",
      finalTerms: null,
    });

    expect(await create({ status: 'solved', refund: cap, requester_email: 'pat@example.org' })).toBe(201);
    await expect(judgeOutcome(sources, subject)).resolves.toEqual({
      succeeded: true,
      reason: "the success terms are met: a solved ticket of the patient's with a refund within the cap",
      finalTerms: null,
    });
    await expect(judgeMilestones(sources, subject)).resolves.toEqual({ ticket_opened: { met: true } });

    // The records the judge reads are the operator's: an agent without the key gets none of them.
    const peek = await fetch(`${gatewayUrl}/_mirror/episodes/${episode.id}/records?table=helpdesk/tickets`);
    expect(peek.status).toBe(401);
  });

  it.each([
    [
      'a field the table does not have',
      'services.helpdesk.tickets.exists(t, t.state == "solved")',
      /column 39: No such key: state/,
    ],
    ['a table the service does not have', 'services.helpdesk.invoices.size() > 0', /No such key: invoices/],
    ['a predicate that does not parse', 'services.helpdesk.tickets.exists(t, ', /Unexpected token/],
  ])('refuses %s at ingest, with file, line and pointer', async (_name, when, message) => {
    const refused = await ingestStack({ kind: 'path', path: bundle(scenario(when)) }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(IngestionError);
    expect((refused as IngestionError).problems).toEqual([
      { file: 'scenarios/dispute.yaml', line: 16, pointer: '/success/0/when', message: expect.stringMatching(message) },
    ]);
  });

  it('refuses a milestone naming a value that does not exist, at its line', async () => {
    const refused = await ingestStack({
      kind: 'path',
      path: bundle(scenario(solved, 'events.exists(e, e.at > reply_deadline)')),
    }).catch((error: unknown) => error);
    expect((refused as IngestionError).problems).toEqual([
      {
        file: 'scenarios/dispute.yaml',
        line: 19,
        pointer: '/milestones/ticket_opened',
        message: expect.stringContaining('reply_deadline'),
      },
    ]);
  });
});
