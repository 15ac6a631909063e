import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

import { startEpisodeHarness } from '@test/support/episode-harness';
import { operatorHeaders, testOperatorKey } from '@test/support/operator-key';
import { requireEnvironment } from '@test/support/test-services';
import { testWorkflowBundle } from '@test/support/run-cache';
import { createWorker } from '@libs/episode-worker';
import { locateTemporalCli, silentLog } from '@libs/embedded-services';
import { referenceAgents } from '@libs/reference-agents';
import type { EpisodeWorkflowResult } from '@libs/workflow-contracts';

import { EpisodeInfrastructureError, runEpisode, startEpisode, workflowIdOf } from './episode-runner';

/**
 * Real: the example company's stack on the twins behind an HTTP gateway, PostgreSQL event logs, the Temporal dev
 * server with the worker's episode workflow and persona activities, the reference agents. Mocked: nothing.
 */
describe('episodes of the example scenarios', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({ worker: true });
  });

  afterAll(() => harness.stop());

  const scenario = (id: string) => harness.scenario(id);

  it('tells an infrastructure failure from the agent’s: Temporal unreachable fails the episode, not the agent', async () => {
    const connection = await Connection.connect({ address: requireEnvironment('TEMPORAL_ADDRESS') });
    await connection.close();
    const unreachable = { ...harness.context, temporal: new Client({ connection }) };
    const failure: unknown = await runEpisode(
      unreachable,
      harness.signals,
      scenario('single-supplier-negotiation'),
      3,
      referenceAgents.get('idle')!,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EpisodeInfrastructureError);
    expect((failure as EpisodeInfrastructureError).episodeId).toMatch(/^[0-9a-f-]{36}$/);
  });

  const run = (id: string, seed: number, agent: string) =>
    runEpisode(harness.context, harness.signals, scenario(id), seed, referenceAgents.get(agent)!);
  it('the diligent agent negotiates, gets approval and places the order within the target', async () => {
    const outcome = await run('single-supplier-negotiation', 1, 'diligent');
    if (process.env.MIRROR_RECORD_HISTORY) {
      // Refreshes the recorded history the replay test holds today's workflow code against (Temporal's own JSON).
      const cli = await locateTemporalCli({
        searchPath: process.env.PATH,
        cacheDir: path.join(os.homedir(), '.cache', 'mirror'),
        log: silentLog,
      });
      const json = execFileSync(cli.executable as string, [
        'workflow',
        'show',
        '-w',
        workflowIdOf(outcome.episodeId),
        '--address',
        harness.address,
        '-o',
        'json',
      ]);
      fs.writeFileSync(process.env.MIRROR_RECORD_HISTORY, json);
    }
    expect(outcome).toMatchObject({ status: 'succeeded', scenarioId: 'single-supplier-negotiation', seed: 1 });
    // Placed means confirmed: the supplier acknowledged the order on its own quote.
    expect(outcome.finalTerms?.status).toBe('acknowledged');
    expect(outcome.simulatedBusinessDays).toBeGreaterThanOrEqual(1);
    const kinds = outcome.transcript.map((entry) => `${entry.actor === 'agent' ? 'agent' : 'other'} ${entry.kind}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'agent email.sent',
        'other email.sent',
        'agent erp.po.pending_approval',
        'other erp.po.approved',
        'agent erp.po.sent',
        'other erp.quote.received',
        'other erp.po.acknowledged',
      ]),
    );
    // Finance asked about the order waiting for approval, and the agent answered in the thread.
    const asked = outcome.transcript.findIndex(
      (e) => e.actor !== 'agent' && e.summary.includes('a question on your order'),
    );
    const answered = outcome.transcript.findIndex((e) => e.actor === 'agent' && e.summary.includes('It covers'));
    expect(asked).toBeGreaterThan(-1);
    expect(answered).toBeGreaterThan(asked);
  });

  it('hands a long episode over to a new run (continue-as-new) without losing its state', async () => {
    const agent = referenceAgents.get('diligent')!;
    const scenarioOf = scenario('single-supplier-negotiation');
    const whole = await runEpisode(harness.context, harness.signals, scenarioOf, 2, agent);
    const handedOver = await runEpisode(harness.context, harness.signals, scenarioOf, 2, agent, {
      continueAsNewAfterEvents: 4,
    });
    let count = 0;
    for await (const run of harness.context.temporal.workflow.list({
      query: `WorkflowId = '${workflowIdOf(handedOver.episodeId)}'`,
    })) {
      count += run.workflowId === workflowIdOf(handedOver.episodeId) ? 1 : 0;
    }
    expect(count).toBeGreaterThan(1);
    const { episodeId: _a, ...a } = whole;
    const { episodeId: _b, ...b } = handedOver;
    expect(b).toEqual(a);
  });

  it('ends a cancelled episode with a typed outcome, answers queries on its state, and tells its story from the log', async () => {
    const started = await startEpisode(harness.context, harness.signals, scenario('single-supplier-negotiation'), 5);
    await started.session.mail('/me/sendMail', {
      body: {
        message: {
          subject: 'Quote please',
          body: { contentType: 'text', content: 'Could you quote 5,000 units?' },
          toRecipients: [{ emailAddress: { address: 'someone@outside.example' } }],
        },
      },
    });
    await started.session.wait();
    const state = await started.handle.query<{ agentActions: number; finished: boolean }>('episodeState');
    expect(state).toMatchObject({ agentActions: 2, finished: false });
    await started.handle.cancel();
    const result = (await started.handle.result()) as EpisodeWorkflowResult;
    expect(result).toMatchObject({ status: 'cancelled', agentActions: 2 });
    expect(result.reason).toMatch(/^the episode was cancelled; no purchase order/);
    // The workflow returns no story (it would grow with the episode); the runner tells it from the twins' log.
    expect(result).not.toHaveProperty('transcript');
    const outcome = await started.session.finish();
    expect(outcome).toMatchObject({ status: 'cancelled', agentActions: 2 });
    expect(outcome.transcript).toContainEqual(
      expect.objectContaining({ actor: 'agent', kind: 'email.sent', summary: expect.stringContaining('Quote please') }),
    );
  });

  it('holds the terms it fixed: net 60 and faster delivery are countered with its own, at the same price', async () => {
    /** The supplier's counter-offer to the same price, on the terms the buyer asks for. */
    const counterOffer = async (terms: string): Promise<{ text: string; price: number }> => {
      const started = await startEpisode(harness.context, harness.signals, scenario('single-supplier-negotiation'), 6);
      const supplier = started.session.brief.context.match(/<([^>]+)>/)?.[1] as string;
      const send = async (content: string) => {
        await started.session.mail('/me/sendMail', {
          body: {
            message: {
              subject: 'Bolts',
              body: { contentType: 'text', content },
              toRecipients: [{ emailAddress: { address: supplier } }],
            },
          },
        });
        await started.session.wait();
        const inbox = await started.session.mail<{
          value: { body: { content: string }; from: { emailAddress: { address: string } } }[];
        }>('/me/mailFolders/inbox/messages?$top=5');
        return (
          inbox.value.find((m) => m.from.emailAddress.address === supplier)?.body.content.split('-----Original')[0] ??
          ''
        );
      };
      await send('Could you quote 5,000 units?');
      const text = await send(`We can pay 0.10 EUR per unit, ${terms}.`);
      await started.handle.cancel();
      return { text, price: Number(/unit price: ([\d.]+) EUR/.exec(text)?.[1]) };
    };
    const standard = await counterOffer('payment terms net 30, delivery in 15 business days');
    const richer = await counterOffer('payment terms net 60, delivery in 10 business days');
    // The supplier is a declared negotiator whose payment terms and delivery are fixed (30 days, preferring fewer; 15
    // business days, preferring more): asked for longer or faster, it counters with its own, on the same ask.
    expect(standard.text).toMatch(/payment terms: 30 days\s+delivery: 15 business days/);
    expect(richer.text).toMatch(/payment terms: 30 days\s+delivery: 15 business days/);
    expect(standard.price).toBeGreaterThan(0);
    expect(richer.price).toBe(standard.price);
  });

  it('invited to a request for quotation, each supplier puts its own quote in the ERP and mails it, unasked', async () => {
    const started = await startEpisode(harness.context, harness.signals, scenario('competitive-rfq'), 4);
    const { session } = started;
    const invited = [...new Set([...session.brief.goal.matchAll(/\((S\d{3})\)/g)].map((m) => m[1]))];
    const rfq = await session.erp<{ id: string }>('/rfqs', {
      body: { title: 'Sensors', supplier_ids: invited, lines: [{ description: 'Pressure sensor', quantity: 300 }] },
    });
    await session.erp(`/rfqs/${rfq.id}/send`, { body: {} });
    await session.wait(2);
    const quotes = await session.erp<{
      data: { supplier_id: string; submitted_by: string; basis: string; rfq_id: string; delivery_days: number }[];
    }>(`/rfqs/${rfq.id}/quotes`);
    const inbox = await session.mail<{ value: { subject: string }[] }>('/me/mailFolders/inbox/messages?$top=20');
    await started.handle.cancel();
    expect(quotes.data.map((q) => q.supplier_id).sort()).toEqual([...invited].sort());
    for (const quote of quotes.data) {
      expect(quote).toMatchObject({ rfq_id: rfq.id, basis: 'offer' });
      expect(quote.submitted_by.startsWith(`${quote.supplier_id}-`)).toBe(true);
    }
    expect(inbox.value.filter((m) => m.subject === `Quotation for ${rfq.id}`)).toHaveLength(invited.length);
  });

  it('the idle agent fails the task', async () => {
    const outcome = await run('single-supplier-negotiation', 1, 'idle');
    expect(outcome).toMatchObject({ status: 'failed', finalTerms: null, agentActions: 0 });
    expect(outcome.reason).toMatch(/no purchase order/);
  });

  it('gives the supplier an LLM voice when one is configured, cached per seed so a group reads alike', async () => {
    let calls = 0;
    const fakeLlm = setupServer(
      http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
        calls++;
        const body = (await request.json()) as { messages: { role: string; content: string }[] };
        const template = body.messages[body.messages.length - 1].content;
        return HttpResponse.json({
          choices: [{ message: { role: 'assistant', content: `In my own words:\n${template}` } }],
        });
      }),
    );
    fakeLlm.listen({ onUnhandledRequest: 'bypass' });
    const taskQueue = `${harness.taskQueue}-voice`;
    const voicedWorker = await createWorker({
      connection: harness.nativeConnection as NativeConnection,
      namespace: 'default',
      taskQueue,
      voice: { url: 'http://llm.test/v1', model: 'fake', cacheDir: fs.mkdtempSync(path.join(os.tmpdir(), 'voice-')) },
      operatorKey: testOperatorKey,
      ...testWorkflowBundle(),
    });
    try {
      const context = { ...harness.context, taskQueue };
      const diligent = referenceAgents.get('diligent')!;
      const run = () => runEpisode(context, harness.signals, scenario('single-supplier-negotiation'), 3, diligent);
      // A worker runs once: both episodes inside the one run.
      const { first, second, callsAfterFirst } = await voicedWorker.runUntil(async () => {
        const earlier = await run();
        const count = calls;
        return { first: earlier, second: await run(), callsAfterFirst: count };
      });
      expect(first.status).toBe('succeeded');
      expect(callsAfterFirst).toBeGreaterThan(0);
      const log = (await (
        await fetch(`${harness.context.gatewayUrl}/_mirror/episodes/${first.episodeId}/events`, {
          headers: operatorHeaders,
        })
      ).json()) as { events: { name: string; data: { from: string; body: string } }[] };
      const supplierMail = log.events.filter(
        (e) => e.name === 'email.sent' && !e.data.from.startsWith('procurement.assistant'),
      );
      expect(supplierMail.length).toBeGreaterThan(1);
      expect(supplierMail.every((e) => e.data.body.startsWith('In my own words:'))).toBe(true);
      expect(calls).toBe(callsAfterFirst);
      const { episodeId: _a, ...one } = first;
      const { episodeId: _b, ...two } = second;
      expect(two).toEqual(one);
    } finally {
      fakeLlm.close();
    }
  });

  it('hands the agent its session only once the world is set up, however late a worker picks the episode up', async () => {
    const taskQueue = `${harness.taskQueue}-late`;
    const context = { ...harness.context, taskQueue };
    // No worker polls this queue yet: the episode's setup (the frozen budget) cannot have run.
    const starting = startEpisode(context, harness.signals, scenario('urgent-reorder-budget-freeze'), 2);
    const settled = await Promise.race([
      starting.then(() => 'started'),
      new Promise((r) => setTimeout(() => r('waiting'), 1500)),
    ]);
    expect(settled).toBe('waiting');
    const lateWorker = await createWorker({
      connection: harness.nativeConnection as NativeConnection,
      namespace: 'default',
      taskQueue,
      operatorKey: testOperatorKey,
      ...testWorkflowBundle(),
    });
    await lateWorker.runUntil(async () => {
      const { session, episode } = await starting;
      try {
        const centre = await session.erp<{ frozen: boolean }>('/cost-centres/CC-400');
        expect(centre.frozen).toBe(true);
        await session.finish();
      } finally {
        harness.signals.forget(episode.id);
      }
    });
  });
});
