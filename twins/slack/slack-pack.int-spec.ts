import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Server } from 'node:http';

import { ErrorCode, LogLevel, WebAPIPlatformError, WebClient } from '@slack/web-api';

import { ingestStack } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { createGatewayServer, Episode, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { testOperatorKey } from '@test/support/operator-key';

import { builtInPacks } from '..';
import { slackToken, slackUserId } from '.';

/**
 * Real: Slack's own Node SDK (`@slack/web-api`) over HTTP, the gateway, the twin engine with the Slack pack. The
 * event store is the in-memory one: durability is the engine's subject, tested there against PostgreSQL.
 */
describe('Slack twin through @slack/web-api', () => {
  let server: Server;
  let engine: TwinEngine;
  const store = new InMemoryEpisodeStore();
  let episode: Episode;
  let company: Company;
  let apiUrl: string;
  const seed = 11;

  /** Every answer the SDK received, to hold against the spec at the end. */
  const answers: { method: string; status: number; body: { ok?: boolean } }[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const method = String(input instanceof Request ? input.url : input).split('/api/')[1] ?? '';
    answers.push({ method, status: response.status, body: (await response.clone().json()) as { ok?: boolean } });
    return response;
  };
  const client = (token: string) =>
    new WebClient(token, {
      slackApiUrl: apiUrl,
      fetch: recordingFetch,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
    });
  const tokenOf = (employeeId: string) => slackToken(episode.credentials.for('slack'), employeeId);
  const channelId = async (name: string) => {
    const list = await client(tokenOf('E0000')).conversations.list({ types: 'public_channel,private_channel' });
    return list.channels?.find((c) => c.name === name)?.id as string;
  };
  const platformError = async (call: Promise<unknown>): Promise<string> => {
    try {
      await call;
    } catch (error) {
      if ((error as WebAPIPlatformError).code === ErrorCode.PlatformError) {
        return (error as WebAPIPlatformError).data.error;
      }
      throw error;
    }
    throw new Error('the call succeeded');
  };

  beforeAll(async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: path.join(__dirname, 'fixtures', 'workspace') });
    engine = new TwinEngine(store, new StaticStackSource(model), builtInPacks);
    episode = await engine.createEpisode({
      tenantId: 'test',
      stackVersion: version,
      seed,
      sizes: { company: { employees: 60, suppliers: 5, items: 20 } },
    });
    company = episode.twin.world.company as Company;
    server = createGatewayServer(engine, 'test', { error: (message) => console.error(message) }, testOperatorKey);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/e/${episode.id}/slack/api/`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('knows who is calling from the bearer token, and refuses unknown tokens', async () => {
    const me = await client(tokenOf('E0000')).auth.test();
    expect(me).toMatchObject({ ok: true, user: 'procurement.assistant', user_id: slackUserId(seed, company.agent) });
    expect(await platformError(client('xoxp-not-a-token').auth.test())).toBe('invalid_auth');
  });

  it('posts, threads and reads back in time order, with the events on the episode log', async () => {
    const web = client(tokenOf('E0000'));
    const channel = await channelId('procurement-approvals');
    const parent = await web.chat.postMessage({ channel, text: 'PO-1042 for 2,400 EUR needs approval' });
    const reply = await web.chat.postMessage({ channel, text: 'Quote attached', thread_ts: parent.ts });
    expect(Number(reply.ts)).toBeGreaterThan(Number(parent.ts));

    const history = await web.conversations.history({ channel, limit: 3 });
    expect(history.messages?.[0]).toMatchObject({ text: 'PO-1042 for 2,400 EUR needs approval', reply_count: 1 });
    expect(history.messages?.some((m) => m.ts === reply.ts)).toBe(false);
    const thread = await web.conversations.replies({ channel, ts: parent.ts as string });
    expect(thread.messages?.map((m) => m.text)).toEqual(['PO-1042 for 2,400 EUR needs approval', 'Quote attached']);

    const posted = (await store.events('test', episode.id))
      .map((logged) => logged.event)
      .filter((event) => event.type === 'domain' && event.name === 'slack.message.posted');
    expect(posted.slice(-2).map((event) => event.type === 'domain' && event.data)).toEqual([
      expect.objectContaining({ channel, ts: parent.ts, employee: 'E0000', text: parent.message?.text }),
      expect.objectContaining({ channel, ts: reply.ts, thread_ts: parent.ts, text: 'Quote attached' }),
    ]);
  });

  it('paginates with response_metadata.next_cursor until the last page', async () => {
    const web = client(tokenOf('E0000'));
    const channel = await channelId('general');
    for (let i = 0; i < 5; i++) {
      await web.chat.postMessage({ channel, text: `note ${i}` });
    }
    const pages: number[] = [];
    const seen: string[] = [];
    for await (const result of web.paginate('conversations.history', { channel, limit: 2 })) {
      const messages = (result as unknown as { messages: { ts: string }[] }).messages;
      pages.push(messages.length);
      seen.push(...messages.map((m) => m.ts));
    }
    const all = await web.conversations.history({ channel, limit: 999 });
    expect(pages.length).toBeGreaterThan(2);
    expect(seen).toEqual(all.messages?.map((m) => m.ts));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('answers with Slack’s error codes', async () => {
    const web = client(tokenOf('E0000'));
    expect(await platformError(web.conversations.history({ channel: await channelId('leadership') }))).toBe(
      'channel_not_found',
    );
    const engineering = (await web.conversations.list()).channels?.find((c) => c.name === 'engineering')?.id as string;
    expect(await platformError(web.chat.postMessage({ channel: engineering, text: 'hi' }))).toBe('not_in_channel');
    const general = await channelId('general');
    expect(await platformError(web.chat.postMessage({ channel: general, text: '' }))).toBe('no_text');
    expect(await platformError(web.chat.update({ channel: general, ts: '1000000000.000001', text: 'x' }))).toBe(
      'message_not_found',
    );
    const someoneElse = (await web.conversations.history({ channel: general, limit: 50 })).messages?.find(
      (m) => m.user !== slackUserId(seed, company.agent),
    );
    expect(
      await platformError(web.chat.update({ channel: general, ts: someoneElse?.ts as string, text: 'rewritten' })),
    ).toBe('cant_update_message');
    expect(await platformError(web.users.lookupByEmail({ email: 'nobody@nowhere.example' }))).toBe('users_not_found');
  });

  it('finds the same people the company has, by email', async () => {
    const person = company.employees[7];
    const found = await client(tokenOf('E0000')).users.lookupByEmail({ email: person.email });
    expect(found.user).toMatchObject({ id: slackUserId(seed, person), real_name: person.name });
  });

  it('opens a DM by user id and lets both parties read it', async () => {
    const approver = company.employees.find((e) => e.role === 'approver') ?? company.employees[1];
    const agent = client(tokenOf('E0000'));
    const opened = await agent.conversations.open({ users: slackUserId(seed, approver) });
    const dm = opened.channel?.id as string;
    await agent.chat.postMessage({ channel: dm, text: 'Could you approve PO-1042?' });
    const theirs = await client(tokenOf(approver.id)).conversations.history({ channel: dm });
    expect(theirs.messages?.[0]?.text).toBe('Could you approve PO-1042?');
    const outsider = company.employees.find((e) => e.id !== approver.id && e.role === 'requester') as { id: string };
    expect(await platformError(client(tokenOf(outsider.id)).conversations.history({ channel: dm }))).toBe(
      'channel_not_found',
    );
  });

  it('accepts JSON bodies as well as the SDK’s form bodies', async () => {
    const channel = await channelId('finance-questions');
    const response = await fetch(`${apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf('E0000')}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel, text: 'sent as JSON' }),
    });
    await expect(response.json()).resolves.toMatchObject({ ok: true, message: { text: 'sent as JSON' } });
  });

  it('throttles with 429 and Retry-After when rate limits are switched on', async () => {
    await engine.setFaults('test', episode.id, {
      services: { slack: { rateLimit: { requests: 1, windowSeconds: 60 } } },
    });
    try {
      const web = client(tokenOf('E0000'));
      await web.auth.test();
      await expect(web.auth.test()).rejects.toMatchObject({ code: ErrorCode.RateLimitedError });
    } finally {
      await engine.setFaults('test', episode.id, undefined);
    }
  });

  it('creates and joins channels, reacts, searches, shares files and deletes, as Slack does', async () => {
    const agent = client(tokenOf('E0000'));
    const buyer = company.employees.find((e) => e.role === 'buyer') as { id: string; handle: string };
    const created = await agent.conversations.create({ name: 'rfq-fasteners-2026' });
    const channel = created.channel?.id as string;
    expect(await platformError(agent.conversations.create({ name: 'rfq-fasteners-2026' }))).toBe('name_taken');
    expect(await platformError(agent.conversations.create({ name: 'Bad Name' }))).toBe('invalid_name_specials');
    await client(tokenOf(buyer.id)).conversations.join({ channel });
    const members = await agent.conversations.members({ channel });
    expect(members.members).toHaveLength(2);

    const posted = await client(tokenOf(buyer.id)).chat.postMessage({ channel, text: 'Three quotes for M8 bolts' });
    await agent.reactions.add({ channel, timestamp: posted.ts as string, name: 'eyes' });
    expect(await platformError(agent.reactions.add({ channel, timestamp: posted.ts as string, name: 'eyes' }))).toBe(
      'already_reacted',
    );
    const reactions = await agent.reactions.get({ channel, timestamp: posted.ts as string });
    expect((reactions.message as { reactions: unknown[] }).reactions).toEqual([
      { name: 'eyes', users: [slackUserId(seed, company.agent)], count: 1 },
    ]);

    const search = await agent.search.messages({ query: `quotes bolts in:#rfq-fasteners-2026 from:@${buyer.handle}` });
    expect(search.messages?.matches?.map((m) => m.ts)).toEqual([posted.ts]);

    const shared = await agent.apiCall('files.upload', {
      channels: channel,
      filename: 'comparison.csv',
      content: 'supplier,price\nA,0.12\n',
      initial_comment: 'comparison attached',
    });
    expect(shared).toMatchObject({ ok: true, file: { name: 'comparison.csv', size: 22 } });
    const latest = await agent.conversations.history({ channel, limit: 1 });
    expect(latest.messages?.[0]).toMatchObject({ text: 'comparison attached', upload: true });

    await agent.chat.delete({ channel, ts: latest.messages?.[0]?.ts as string });
    const after = await agent.conversations.history({ channel });
    expect(after.messages?.map((m) => m.text)).toEqual(['Three quotes for M8 bolts']);
    const deletions = (await store.events('test', episode.id)).filter(
      (logged) => logged.event.type === 'domain' && logged.event.name === 'slack.message.deleted',
    );
    expect(deletions.map((logged) => logged.event.type === 'domain' && logged.event.data.text)).toEqual([
      'comparison attached',
    ]);
  });

  it('answered every call above in the shapes the spec declares (success, or the method’s error schema)', () => {
    const twin = episode.twin.services.get('slack') as NonNullable<ReturnType<typeof episode.twin.services.get>>;
    const problems: string[] = [];
    expect(answers.length).toBeGreaterThan(30);
    for (const answer of answers) {
      const plan = twin.plans.find((p) => p.operation.path === `/${answer.method}`);
      const declared = plan?.operation.responses.find((r) => r.status === (answer.body.ok ? '200' : 'default'));
      const pointer = declared && Object.values(declared.content)[0];
      if (!pointer) {
        problems.push(`${answer.method}: no declared response for ok=${String(answer.body.ok)}`);
        continue;
      }
      const validate = twin.validators.validator(pointer);
      if (!validate(answer.body)) {
        problems.push(`${answer.method}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
