import * as path from 'node:path';

import { ErrorCode, LogLevel, WebAPIPlatformError, WebClient } from '@slack/web-api';

import { repositoryRoot } from '@test/support/cli-runner';

import { serveTwin, VendorTwin } from './vendor-twin';

/**
 * Real: Slack's own Node SDK (@slack/web-api 8.2.0, unmodified) over HTTP against the built-in Slack twin pack
 * served at an origin of its own, as `mirror serve` serves it, with the agent's token the episode issues. Mocked:
 * nothing.
 */
describe('Slack twin through @slack/web-api: the SDK’s create, read, update, paginate, delete and errors', () => {
  let twin: VendorTwin;
  let web: WebClient;

  beforeAll(async () => {
    twin = await serveTwin(path.join(repositoryRoot, 'twins', 'slack', 'fixtures', 'workspace'));
    web = new WebClient(twin.token, {
      slackApiUrl: `${twin.origin}/api/`,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
  }, 900_000); // ingesting a large vendor spec on a loaded machine can take minutes

  afterAll(() => twin?.close());

  const platformError = async (call: Promise<unknown>): Promise<WebAPIPlatformError> => {
    try {
      await call;
    } catch (error) {
      if ((error as WebAPIPlatformError).code === ErrorCode.PlatformError) {
        return error as WebAPIPlatformError;
      }
      throw error;
    }
    throw new Error('the call succeeded');
  };

  it('creates a channel and a message, reads, updates, pages through and deletes them as Slack does', async () => {
    const created = await web.conversations.create({ name: 'sdk-fidelity' });
    const channel = created.channel?.id as string;
    expect(created.channel).toMatchObject({ name: 'sdk-fidelity', is_channel: true });
    expect((await web.conversations.info({ channel })).channel).toMatchObject({ id: channel, name: 'sdk-fidelity' });

    const posted = [];
    for (let n = 0; n < 5; n++) {
      posted.push(await web.chat.postMessage({ channel, text: `draft ${n}` }));
    }
    const first = posted[0].ts as string;
    const updated = await web.chat.update({ channel, ts: first, text: 'final 0' });
    expect(updated).toMatchObject({ ok: true, ts: first, text: 'final 0' });

    // The SDK's own paginator follows response_metadata.next_cursor page after page.
    const pages: string[][] = [];
    for await (const page of web.paginate('conversations.history', { channel, limit: 2 })) {
      pages.push(((page as { messages?: { ts: string }[] }).messages ?? []).map((message) => message.ts));
    }
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(posted.map((message) => message.ts)));
    const history = await web.conversations.history({ channel, limit: 10 });
    expect(history.messages?.find((message) => message.ts === first)?.text).toBe('final 0');

    expect(await web.chat.delete({ channel, ts: first })).toMatchObject({ ok: true, ts: first });
    const after = await web.conversations.history({ channel, limit: 10 });
    expect(after.messages?.map((message) => message.ts)).not.toContain(first);
  });

  it('turns the twin’s refusals into the SDK’s platform errors with Slack’s codes', async () => {
    const missing = await platformError(web.conversations.info({ channel: 'C0000NOPE' }));
    expect(missing.data).toMatchObject({ ok: false, error: 'channel_not_found' });
    const general = (await web.conversations.list({ limit: 200 })).channels?.find((c) => c.name === 'general');
    const gone = await platformError(web.chat.delete({ channel: general?.id as string, ts: '1.000001' }));
    expect(gone.data.ok).toBe(false);
    expect(gone.data.error).toMatch(/^(message_not_found|cant_delete_message)$/);
    const unauthenticated = new WebClient('xoxp-not-a-token', {
      slackApiUrl: `${twin.origin}/api/`,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
    expect((await platformError(unauthenticated.auth.test())).data.error).toBe('invalid_auth');
  });
});
