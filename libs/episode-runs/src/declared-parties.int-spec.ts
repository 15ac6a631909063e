import * as path from 'node:path';

import { startEpisodeHarness } from '@test/support/episode-harness';
import { repositoryRoot } from '@test/support/cli-runner';
import type { DeclaredParty } from '@libs/party-reactions';
import type { AgentSession, ReferenceAgent } from '@libs/reference-agents';
import { instantiate } from '@libs/scenarios';
import type { Company } from '@libs/synthetic-data';
import type { LoggedEvent } from '@libs/twin-engine';
import { addBusinessHours } from '@libs/workflow-contracts';

import { runEpisode, startEpisode } from './episode-runner';

interface Message {
  id: string;
  subject: string;
  body: { content: string };
  from: { emailAddress: { address: string } };
}

const inbox = (session: AgentSession) =>
  session.mail<{ value: Message[] }>('/me/mailFolders/inbox/messages?$top=20').then((box) => box.value);

/**
 * A scripted agent for the fixture's dispute: it reads the customer's mail, asks finance on chat about the refund,
 * asks the customer by mail for the payment date, then waits for both answers.
 */
const scriptedAgent = (seen: { opening?: Message; answers: Message[] }): ReferenceAgent => ({
  name: 'scripted',
  async run(session) {
    seen.opening = (await inbox(session)).find((m) => m.subject.startsWith('Charged twice'));
    if (!seen.opening) {
      await session.finish();
      return;
    }
    const customer = seen.opening.from.emailAddress.address;
    await session.slack('conversations.join', { channel: '#finance' });
    await session.slack('chat.postMessage', {
      channel: '#finance',
      text: `May I refund the double charge on ${seen.opening.subject.split(' ').pop()}?`,
    });
    await session.mail('/me/sendMail', {
      body: {
        message: {
          subject: 'Your invoice',
          body: { contentType: 'text', content: 'Could you tell me the payment date, please?' },
          toRecipients: [{ emailAddress: { address: customer } }],
        },
      },
    });
    await session.wait();
    await session.wait();
    seen.answers = (await inbox(session)).filter((m) => m.from.emailAddress.address === customer);
    await session.finish();
  },
});

/**
 * Real: a bundle whose parties are all data (a requester, a responder, a reacting approver), on the twins behind the
 * gateway, PostgreSQL, Temporal and the worker. The counterparties must act through the twins, as themselves, at the
 * business time their declaration gives.
 */
describe('parties declared as data', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({
      worker: true,
      bundle: path.join(repositoryRoot, 'test', 'fixtures', 'invoice-desk'),
    });
  });

  afterAll(() => harness.stop());

  it('opens the case, answers on chat two business hours later, and answers a mailed question with its fact', async () => {
    const seen: { opening?: Message; answers: Message[] } = { answers: [] };
    const outcome = await runEpisode(
      harness.context,
      harness.signals,
      harness.scenario('invoice-dispute'),
      3,
      scriptedAgent(seen),
    );
    // Success is the scenario's predicate over what the twins recorded: the agent answered the customer.
    expect(outcome.status).toBe('succeeded');
    const log = await harness.context.engine.events(harness.context.tenantId, outcome.episodeId);
    const domain = (name: string) =>
      log.filter(
        (e): e is LoggedEvent & { event: { type: 'domain'; data: Record<string, unknown> } } =>
          e.event.type === 'domain' && e.event.name === name,
      );
    const episode = await harness.context.engine.episode(harness.context.tenantId, outcome.episodeId);
    const start = Date.parse(log[0].at);
    const company = episode.twin.world.company as Company;
    const instance = instantiate(harness.scenario('invoice-dispute'), 3, company, harness.context.instanceKey);
    const customer = instance.parties.customer as DeclaredParty;
    const finance = instance.parties.finance as DeclaredParty;
    const agentEmail = company.agent.email;

    // The requester opened the case at the start, by mail, as itself, through a twin operation of its declaration.
    const mails = domain('email.sent');
    const opening = mails.find((e) => e.event.data.subject === `Charged twice for INV-${instance.values.invoice_no}`);
    expect(opening).toMatchObject({ actor: customer.email });
    expect(opening?.event.data.to).toEqual([agentEmail]);
    expect(Date.parse(opening!.at) - start).toBeLessThan(60_000);
    expect(seen.opening?.body.content).toContain(`${customer.name}`);

    // Finance answered the agent's post in its thread, as the finance employee, two business hours after it.
    const posts = domain('slack.message.posted');
    const asked = posts.find((e) => String(e.event.data.text).includes('May I refund'));
    const approved = posts.find((e) => String(e.event.data.text).startsWith('Approved: refund'));
    expect(approved).toMatchObject({ actor: finance.employeeId });
    expect(approved?.event.data.thread_ts).toBe(asked?.event.data.ts);
    expect(approved?.event.data.text).toBe(
      `Approved: refund ${instance.values.charged} EUR on INV-${instance.values.invoice_no}.`,
    );
    const due = addBusinessHours(Date.parse(asked!.at), 2);
    expect(Date.parse(approved!.at)).toBeGreaterThanOrEqual(due);
    expect(Date.parse(approved!.at) - due).toBeLessThan(60_000);

    // The customer answered the mailed question with the fact it knows, one business hour later.
    const question = mails.find((e) => e.event.data.subject === 'Your invoice');
    const answer = mails.find((e) => e.event.data.subject === 'Re: Your invoice');
    expect(answer).toMatchObject({ actor: customer.email });
    expect(answer?.event.data.body).toBe(`The payment date is ${customer.knows.payment_date}.`);
    expect(seen.answers.map((m) => m.subject)).toContain('Re: Your invoice');
    const answerDue = addBusinessHours(Date.parse(question!.at), 1);
    expect(Date.parse(answer!.at)).toBeGreaterThanOrEqual(answerDue);
    expect(Date.parse(answer!.at) - answerDue).toBeLessThan(60_000);

    // It gave away only what it was asked: not its other private fact.
    expect(String(answer?.event.data.body)).not.toContain(customer.knows.card_last_digits);
    // Each counterparty acted once: a retried or replayed action is not repeated.
    expect(mails.filter((e) => e.event.data.subject === 'Re: Your invoice')).toHaveLength(1);
    expect(posts.filter((e) => String(e.event.data.text).startsWith('Approved'))).toHaveLength(1);
  });

  it('reviews refunds over the threshold on the client’s own helpdesk: decides by its limit, says so, records it', async () => {
    const started = await startEpisode(harness.context, harness.signals, harness.scenario('invoice-dispute'), 5);
    // The agent reaches the client's helpdesk as itself, like any of its tools.
    const helpdesk = started.session.endpoints.helpdesk;
    const auth = { authorization: `Bearer ${helpdesk.token}` };
    const request = async (amount: number): Promise<{ id: string; at: string }> => {
      const response = await fetch(`${helpdesk.baseUrl}/refunds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ invoice: 'INV-1', amount, status: 'requested' }),
      });
      expect(response.status).toBe(201);
      return { ...((await response.json()) as { id: string }), at: started.episode.now() };
    };
    // Under the threshold, between it and the limit, over the limit (derived: 200 and 400).
    const small = await request(150);
    const fair = await request(300);
    const large = await request(450);
    await started.session.wait();
    await started.session.wait();
    const refunds = await Promise.all(
      [small, fair, large].map(async ({ id }) =>
        (await fetch(`${helpdesk.baseUrl}/refunds/${id}`, { headers: auth }))
          .json()
          .then((r) => r as { status: string; decided_by?: string }),
      ),
    );
    await started.session.finish();
    const controller = started.instance.parties.controller as DeclaredParty;
    expect(refunds.map((r) => r.status)).toEqual(['requested', 'approved', 'rejected']);
    expect(refunds[1].decided_by).toBe(controller.name);

    const log = await harness.context.engine.events(harness.context.tenantId, started.episode.id);
    const said = log.flatMap((e) =>
      e.event.type === 'domain' &&
      e.event.name === 'slack.message.posted' &&
      String(e.event.data.text).startsWith('Refund ')
        ? [{ at: e.at, actor: e.actor, text: String(e.event.data.text) }]
        : [],
    );
    expect(said.map((e) => e.text)).toEqual([
      `Refund ${fair.id} of 300 EUR: approved.`,
      `Refund ${large.id} of 450 EUR: rejected.`,
    ]);
    expect(said.every((e) => e.actor === controller.employeeId)).toBe(true);
    // Two business hours (the approver's default) after each request.
    const due = addBusinessHours(Date.parse(fair.at), 2);
    expect(Date.parse(said[0].at)).toBeGreaterThanOrEqual(due);
    expect(Date.parse(said[0].at) - due).toBeLessThan(60_000);
    const decided = log.filter((e) => e.event.type === 'record.updated' && e.event.table === 'helpdesk/refunds');
    // Recorded by the approver itself, with its own credentials: what the agent writes cannot pass for it.
    expect(decided.map((e) => e.actor)).toEqual([controller.employeeId, controller.employeeId]);
  });

  it('answers a question on chat in its thread, as the employee, from what it knows', async () => {
    const started = await startEpisode(harness.context, harness.signals, harness.scenario('invoice-dispute'), 6);
    const controller = started.instance.parties.controller as DeclaredParty;
    await started.session.slack('conversations.join', { channel: '#finance' });
    const asked = await started.session.slack<{ ok: boolean; ts: string; channel: string }>('chat.postMessage', {
      channel: '#finance',
      text: `${controller.name.split(' ')[0]}, which refund account should I book this on?`,
    });
    // A business day: finance's reaction to "refund" comes first, the answer an hour after it.
    await started.session.wait(1);
    await started.session.finish();
    const log = await harness.context.engine.events(harness.context.tenantId, started.episode.id);
    const answers = log.flatMap((e) =>
      e.event.type === 'domain' && e.event.name === 'slack.message.posted' && e.actor === controller.employeeId
        ? [{ at: e.at, data: e.event.data }]
        : [],
    );
    expect(answers).toHaveLength(1);
    expect(answers[0].data).toMatchObject({
      thread_ts: asked.ts,
      text: `The refund account is ${controller.knows.refund_account}.`,
    });
    const question = log.find((e) => e.event.type === 'domain' && e.event.data.ts === asked.ts);
    const due = addBusinessHours(Date.parse(question!.at), 3);
    expect(Date.parse(answers[0].at)).toBeGreaterThanOrEqual(due);
    expect(Date.parse(answers[0].at) - due).toBeLessThan(60_000);
  });

  it('does not react to what the agent did not do: without a post asking for a refund, finance stays silent', async () => {
    const quiet: ReferenceAgent = {
      name: 'quiet',
      async run(session) {
        await session.slack('conversations.join', { channel: '#finance' });
        await session.slack('chat.postMessage', { channel: '#finance', text: 'Good morning' });
        await session.wait(1);
        await session.finish();
      },
    };
    const outcome = await runEpisode(harness.context, harness.signals, harness.scenario('invoice-dispute'), 4, quiet);
    expect(outcome.status).toBe('failed');
    const log = await harness.context.engine.events(harness.context.tenantId, outcome.episodeId);
    const texts = log.flatMap((e) =>
      e.event.type === 'domain' && e.event.name === 'slack.message.posted' ? [String(e.event.data.text)] : [],
    );
    expect(texts).toContain('Good morning');
    expect(texts.some((t) => t.startsWith('Approved'))).toBe(false);
  });
});
