import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { Page } from 'playwright-core';

import { createDataSource } from '@libs/persistence';
import { withChromium } from '@libs/review-views';
import { repositoryRoot } from '@test/support/cli-runner';
import { testInstanceKey } from '@test/support/instance-key';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

interface Ready {
  api: string;
  gateway: string;
  openapi: string;
  console: string;
  environments: string[];
}

interface McpTool {
  name: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] };
  annotations?: { readOnlyHint?: boolean };
}

/** Starts `mirror up <args> --port 0 --json` as a user would and waits for its one ready line. */
const up = (
  env: NodeJS.ProcessEnv,
  args: string[],
): Promise<{ child: ChildProcess; ready: Ready; exited: Promise<number | null> }> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(repositoryRoot, 'bin', 'mirror.js'), 'up', ...args, '--port', '0', '--json'],
      {
        cwd: repositoryRoot,
        env: { MIRROR_INSTANCE_KEY: testInstanceKey, ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let output = '';
    let errors = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) {
        resolve({ child, ready: JSON.parse(output.split('\n')[0]) as Ready, exited });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    void exited.then((code) => reject(new Error(`mirror up exited with ${code}: ${errors}`)));
  });

/**
 * Real: the built CLI as a process (serving the built console), PostgreSQL, the Temporal dev server, the clinic
 * example, Debian's Chromium. Mocked: nothing.
 */
describe('mirror up', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let served: Awaited<ReturnType<typeof up>>;
  let api: string;
  /** The episode the Chat test drives to a graded end, for the console to show. */
  let gradedEpisode: string | undefined;

  const request = async (
    method: string,
    route: string,
    options: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ) => {
    const response = await fetch(`${api}${route}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined || options.raw !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.raw !== undefined
        ? { body: options.raw }
        : options.body !== undefined
          ? { body: JSON.stringify(options.body) }
          : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : undefined) as Record<string, any>,
    };
  };
  const chatCall = (id: string, name: string, args: unknown) => ({
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    served = await up(
      {
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
        MIRROR_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-up-')),
        MIRROR_MAX_LIVE_EPISODES: '2',
      },
      ['examples/clinic-network'],
    );
    api = served.ready.api;
  });

  afterAll(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
    }
    await database?.drop();
  });

  it('prints one ready line and publishes its OpenAPI document', async () => {
    expect(served.ready).toEqual({
      api: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) as string,
      gateway: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) as string,
      openapi: `${api}/openapi.json`,
      console: `${api}/console/`,
      environments: ['clinic-network'],
    });
    const document = (await (await fetch(served.ready.openapi)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/environments',
        '/v1/environments/{env}/tasks',
        '/v1/episodes',
        '/v1/episodes:group',
        '/v1/episodes/{id}/tool_calls',
        '/v1/episodes/{id}/tools',
        '/v1/episodes/{id}',
        '/v1/episodes/{id}/grade',
        '/v1/episodes/{id}/trajectory',
        '/v1/episodes/{id}/ping',
        '/v1/capacity',
      ]),
    );
    const environments = await request('GET', '/v1/environments');
    expect(environments.body.environments[0]).toMatchObject({
      id: 'clinic-network',
      scenarios: expect.arrayContaining([expect.objectContaining({ id: 'invoice-dispute' })]) as unknown,
      splits: { train: { first_seed: 1 }, test: { first_seed: expect.any(Number) as number } },
    });
    const tasks = await request('GET', '/v1/environments/clinic-network/tasks?split=test&limit=3');
    expect(tasks.body).toMatchObject({ offset: 0, limit: 3, next_offset: 3 });
    expect(tasks.body.tasks).toHaveLength(3);
    expect((await request('GET', '/v1/environments/clinic-network/tasks?split=dev')).body.error.code).toBe(
      'query_invalid',
    );
  });

  it('drives an episode over HTTP to a graded end with OpenAI Chat tool calls, refusing bad input without a change', async () => {
    const created = await request('POST', '/v1/episodes', {
      body: { environment: 'clinic-network', task: 'invoice-dispute@3' },
      headers: { 'idempotency-key': 'first-episode' },
    });
    expect(created.status).toBe(201);
    const episode = created.body as {
      episode_id: string;
      token: string;
      tools: McpTool[];
      mcp: { url: string; headers: Record<string, string> };
    };
    expect(created.body).toMatchObject({
      environment: 'clinic-network',
      task: 'invoice-dispute@3',
      prompt: { messages: [{ role: 'system' }, { role: 'user' }] },
      mcp: {
        url: `${api}/v1/episodes/${episode.episode_id}/mcp`,
        headers: { Authorization: `Bearer ${episode.token}` },
      },
      limits: { max_steps: 100, ttl_seconds: 900 },
    });
    // The same key and body: the first response again; the same key with another body: refused.
    const replayed = await request('POST', '/v1/episodes', {
      body: { environment: 'clinic-network', task: 'invoice-dispute@3' },
      headers: { 'idempotency-key': 'first-episode' },
    });
    expect(replayed.body.episode_id).toBe(episode.episode_id);
    const reused = await request('POST', '/v1/episodes', {
      body: { environment: 'clinic-network', task: 'invoice-dispute@4' },
      headers: { 'idempotency-key': 'first-episode' },
    });
    expect([reused.status, reused.body.error.code]).toEqual([422, 'idempotency_key_reused']);

    const id = episode.episode_id;
    const token = episode.token;
    const route = `/v1/episodes/${id}`;
    const lookup = episode.tools.find((t) => /^records_.*invoices$/.test(t.name) && t.annotations?.readOnlyHint);
    const inbox = episode.tools.find((t) => /^mail_.*list_messages$/.test(t.name) && !/users/.test(t.name));
    const reply = episode.tools.find((t) => /^mail_.*reply$/.test(t.name) && !/users|all/.test(t.name));
    expect([lookup?.name, inbox?.name, reply?.name]).toEqual([
      expect.any(String),
      expect.any(String),
      expect.any(String),
    ]);
    const chat = (calls: unknown[]) => request('POST', `${route}/tool_calls`, { token, body: { tool_calls: calls } });

    // The patient's mail comes in; the desk looks the invoice up and replies.
    expect((await chat([chatCall('c1', 'wait_for_events', { business_days: 1 })])).body).toMatchObject({
      step: 1,
      terminated: false,
    });
    const looked = await chat([chatCall('c2', lookup!.name, { filters: { number: 'like.INV-*' }, limit: 5 })]);
    expect(looked.body).toMatchObject({ episode_id: id, step: 2, terminated: false, truncated: false });
    expect(looked.body.messages).toEqual([
      { role: 'tool', tool_call_id: 'c2', content: expect.stringContaining('INV-') as string },
    ]);
    const mails = await chat([chatCall('c3', inbox!.name, {})]);
    const messageId = (JSON.parse(mails.body.messages[0].content as string) as { value: { id: string }[] }).value[0].id;
    const idArgument = reply!.inputSchema.required?.find((name) => /message/.test(name)) ?? 'message_id';
    const replied = await chat([
      chatCall('c4', reply!.name, { [idArgument]: messageId, comment: 'We are looking into the double charge.' }),
    ]);
    expect(replied.body).toMatchObject({ step: 4, terminated: false });
    expect(replied.body.messages[0].content).not.toMatch(/"error"/);

    // Bad input: each the documented answer, and the step count and the status unchanged.
    // (A refused call is still the agent acting: it keeps the episode from expiring, and changes nothing else.)
    const { expires_at: _expires, ...before } = (await request('GET', route, { token })).body;
    const unknown = await chat([chatCall('u1', 'records_drop_everything', {})]);
    expect(unknown.body.messages[0].content).toContain('unknown tool');
    const notJson = await chat([chatCall('u2', lookup!.name, '{limit: 5')]);
    expect(notJson.body.messages[0].content).toContain('not a JSON object');
    const breaking = await chat([chatCall('u3', lookup!.name, { limit: 'five' })]);
    expect(breaking.body.messages[0].content).toMatch(/break its schema: \/limit/);
    const badBody = await request('POST', `${route}/tool_calls`, { token, raw: '{"tool_calls": [' });
    expect([badBody.status, badBody.body.error]).toEqual([
      400,
      expect.objectContaining({ code: 'body_invalid', episode_id: id }),
    ]);
    const badShape = await request('POST', `${route}/tool_calls`, {
      token,
      body: { tool_calls: [{ id: 'x', type: 'function' }] },
    });
    expect([badShape.status, badShape.body.error.code]).toEqual([400, 'body_invalid']);
    expect(badShape.body.error.message).toMatch(/tool_calls\/0/);
    const badCreate = await request('POST', '/v1/episodes', { body: { environment: 5, task: 'invoice-dispute@3' } });
    expect([badCreate.status, badCreate.body.error.code]).toEqual([400, 'body_invalid']);
    expect(badCreate.body.error.message).toMatch(/^environment: /);
    const noToken = await request('GET', route);
    expect([noToken.status, noToken.body.error]).toEqual([
      401,
      { code: 'token_invalid', message: expect.any(String) as string, episode_id: id },
    ]);

    // Another episode's token opens nothing here; past capacity (2) a third is refused with Retry-After.
    const other = (
      await request('POST', '/v1/episodes', {
        body: { environment: 'clinic-network', scenario: 'invoice-dispute', seed: 4 },
      })
    ).body;
    const foreign = await request('POST', `${route}/tool_calls`, {
      token: other.token as string,
      body: { tool_calls: [chatCall('f1', 'finish_episode', {})] },
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([403, 'token_invalid']);
    const full = await request('POST', '/v1/episodes', {
      body: { environment: 'clinic-network', task: 'invoice-dispute@5' },
    });
    expect([full.status, full.body.error.code]).toEqual([429, 'capacity_exhausted']);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await request('GET', '/v1/capacity')).body).toEqual({ live: 2, max: 2, available: 0 });
    expect((await request('GET', route, { token })).body).toMatchObject(before);

    // A deleted episode: 410 after, for every call.
    expect(
      (await request('DELETE', `/v1/episodes/${other.episode_id}`, { token: other.token as string })).body,
    ).toEqual({
      episode_id: other.episode_id,
      status: 'deleted',
    });
    const gone = await request('POST', `/v1/episodes/${other.episode_id}/tool_calls`, {
      token: other.token as string,
      body: { tool_calls: [chatCall('g1', 'finish_episode', {})] },
    });
    expect([gone.status, gone.body.error.code]).toEqual([410, 'episode_deleted']);

    // Finishing: terminated, graded, the reward in the answer.
    const finished = await chat([chatCall('c5', 'finish_episode', {})]);
    expect(finished.body).toMatchObject({
      step: 5,
      terminated: true,
      truncated: false,
      reward: expect.any(Number) as number,
    });
    const after = await chat([chatCall('c6', lookup!.name, {})]);
    expect([after.status, after.body.error.code]).toEqual([409, 'episode_ended']);
    const status = await request('GET', route, { token });
    expect(status.body).toMatchObject({
      episode_id: id,
      status: 'ended',
      steps: 5,
      outcome: { reward: finished.body.reward },
    });
    const grade = await request('POST', `${route}/grade`, { token });
    expect(grade.body).toMatchObject({
      episode_id: id,
      reward: finished.body.reward,
      violations: expect.any(Array) as unknown,
    });
    const trajectory = await request('GET', `${route}/trajectory`, { token });
    expect((trajectory.body.steps as { call: { name: string } }[]).map((s) => s.call.name)).toEqual([
      'wait_for_events',
      lookup!.name,
      inbox!.name,
      reply!.name,
      'records_drop_everything',
      lookup!.name,
      lookup!.name,
      'finish_episode',
    ]);
    expect(trajectory.body.steps[7].reward).toBe(finished.body.reward);
    expect(trajectory.body.events.length).toBeGreaterThan(0);
    gradedEpisode = id;
  });

  it('serves the reviewer console at the one URL it prints: local mode, the episode page, an annotation as the local owner', async () => {
    expect(gradedEpisode).toEqual(expect.any(String));
    const dataSource = createDataSource(database.url);
    await dataSource.initialize();
    const annotations = async () =>
      Number((await dataSource.query<{ n: string }[]>('SELECT count(*) AS n FROM review_annotations'))[0].n);
    try {
      await withChromium(async (context) => {
        const page: Page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        // No key asked for: the console says it is the local owner, and opens the episode the agent just played.
        await page.goto(`${served.ready.console}#/episodes/${gradedEpisode}`);
        await page.locator('nav.top .session').waitFor();
        await expect(page.locator('nav.top .session').innerText()).resolves.toMatch(/Local mode: local \(admin\)/);
        expect(await page.locator('form.api-key').count()).toBe(0);
        await page.locator('section.tool-calls li').first().waitFor();
        await expect(page.locator('section.tool-calls').innerText()).resolves.toContain('finish_episode');
        // The agent's reads through the tools are recorded where the twins answered them, with the agent as caller.
        const reads = page.locator('section.quiet-calls tr.quiet-call', { hasText: 'invoices' });
        expect(await reads.count()).toBeGreaterThan(0);
        await expect(reads.first().innerText()).resolves.toMatch(/GET \/\S*invoices/);
        const form = page.locator('form.annotation-form').first();
        await form.waitFor();
        // An empty comment is refused with the api's message and nothing saved; then an agreement is saved.
        const before = await annotations();
        await form.locator('button[type=submit]').click();
        await expect(form.locator('.form-error').innerText()).resolves.toContain('comment: say why');
        expect(await annotations()).toBe(before);
        await form.locator('select[name=stance]').selectOption('agree');
        await form.locator('textarea[name=comment]').fill('Checked against the invoice.');
        await form.locator('button[type=submit]').click();
        await page.locator('.annotation.agree').waitFor();
        await expect(page.locator('.annotation.agree').innerText()).resolves.toContain('local (admin)');
        expect(errors).toEqual([]);
      });
      const audited = await dataSource.query<{ actor: string; actor_kind: string; action: string }[]>(
        `SELECT actor, actor_kind, action FROM audit_entries WHERE action LIKE 'verdict.%'`,
      );
      expect(audited).toEqual([{ actor: 'local', actor_kind: 'admin', action: 'verdict.agreed' }]);

      // The review API's bad input, in the episode API's app: the review routes' own messages, nothing saved.
      const before = await annotations();
      const annotate = `/v1/review/episodes/${gradedEpisode}/annotations`;
      const refusals: [Awaited<ReturnType<typeof request>>, number, RegExp][] = [
        [await request('POST', annotate, { raw: '{"rule":' }), 400, /not valid JSON/],
        [await request('POST', annotate, { body: { rule: 'x', stance: 'maybe', comment: 'c' } }), 400, /stance/],
        [
          await request('POST', annotate, { body: { rule: 'x', stance: 'agree', comment: 'x'.repeat(70_000) } }),
          413,
          /too large/,
        ],
        [
          await request('GET', `/v1/review/episodes/${gradedEpisode}/report?format=docx`),
          400,
          /format: must be html or pdf/,
        ],
        [await request('GET', '/v1/review/episodes/00000000-0000-4000-8000-000000000000'), 404, /no episode/],
      ];
      for (const [response, status, message] of refusals) {
        expect([response.status, response.body.statusCode]).toEqual([status, status]);
        expect(response.body.message).toMatch(message);
      }
      expect(await annotations()).toBe(before);
      const report = await fetch(`${api}/v1/review/episodes/${gradedEpisode}/report?format=html`);
      expect([report.status, report.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      expect(await report.text()).toContain(gradedEpisode);
    } finally {
      await dataSource.destroy();
    }
  });

  it('starts a group with identical starts, speaks the Responses shape, replays an idempotent call, and pings', async () => {
    const body = { environment: 'clinic-network', task: 'invoice-dispute@7', n: 2 };
    const created = await request('POST', '/v1/episodes:group', { body, headers: { 'idempotency-key': 'group-1' } });
    expect(created.status).toBe(201);
    const episodes = created.body.episodes as { episode_id: string; token: string; prompt: unknown }[];
    expect(episodes).toHaveLength(2);
    expect(episodes[1].prompt).toEqual(episodes[0].prompt);
    expect(created.body.group_id).toEqual(expect.any(String));
    const [first, second] = episodes;

    const chatTools = await request('GET', `/v1/episodes/${first.episode_id}/tools?format=openai_chat`, {
      token: first.token,
    });
    expect(chatTools.body).toMatchObject({ episode_id: first.episode_id, format: 'openai_chat' });
    expect(chatTools.body.tools[0]).toMatchObject({
      type: 'function',
      function: { name: expect.any(String) as string },
    });
    const badFormat = await request('GET', `/v1/episodes/${first.episode_id}/tools?format=xml`, { token: first.token });
    expect([badFormat.status, badFormat.body.error.code]).toEqual([400, 'query_invalid']);

    // The Responses shape in, the Responses shape out; the same key and body again: the first answer, no new step.
    const responses = {
      output: [{ type: 'function_call', call_id: 'r1', name: 'wait_for_events', arguments: '{"business_days": 1}' }],
    };
    const route = `/v1/episodes/${first.episode_id}/tool_calls`;
    const headers = { 'idempotency-key': 'wait-once' };
    const answered = await request('POST', route, { token: first.token, body: responses, headers });
    expect(answered.body).toMatchObject({
      episode_id: first.episode_id,
      step: 1,
      output: [{ type: 'function_call_output', call_id: 'r1', output: expect.any(String) as string }],
    });
    const again = await request('POST', route, { token: first.token, body: responses, headers });
    expect([again.body, again.headers.get('idempotent-replayed')]).toEqual([answered.body, 'true']);
    expect((await request('GET', `/v1/episodes/${first.episode_id}`, { token: first.token })).body.steps).toBe(1);

    const pinged = await request('POST', `/v1/episodes/${second.episode_id}/ping`, { token: second.token });
    expect(pinged.body).toEqual({ episode_id: second.episode_id, expires_at: expect.any(String) as string });
    for (const episode of episodes) {
      await request('DELETE', `/v1/episodes/${episode.episode_id}`, { token: episode.token });
    }
    expect((await request('GET', '/v1/capacity')).body).toEqual({ live: 0, max: 2, available: 2 });
  });

  it('stops cleanly on SIGTERM', async () => {
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });
});
