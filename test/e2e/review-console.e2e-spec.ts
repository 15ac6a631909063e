import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { INestApplication } from '@nestjs/common';
import type { BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';

import { createApiApp } from '@api/bootstrap';
import { loadConfig } from '@libs/config';
import { createDataSource } from '@libs/persistence';
import { withChromium } from '@libs/review-views';
import { bearer, issueApiKey } from '@test/support/api-keys';
import { writeBundle } from '@test/support/bundle-fixtures';
import { repositoryRoot, runCli } from '@test/support/cli-runner';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

interface RolloutOutput {
  rollout: { id: string };
  episodes: { episodeId: string; violations: string[] }[];
}

/** Colours of the stylesheet the checks look for in screenshots: the chart's bars, evidence marks, failed outlines. */
const colours = { bar: [0x2f, 0x6f, 0xb3], mark: [0xff, 0xe2, 0x7a], bad: [0xb3, 0x26, 0x1e] } as const;

interface PixelStats {
  width: number;
  height: number;
  /** Share of pixels that are not (near) white. */
  inked: number;
  /** Pixels within a small distance of each colour asked about. */
  near: number[];
}

/** What the pixel reader uses of the page's globals (the tests compile without the DOM's types). */
interface CanvasGlobals {
  Image: new () => { src: string; width: number; height: number; decode(): Promise<void> };
  document: {
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        drawImage(image: unknown, x: number, y: number): void;
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      } | null;
    };
  };
}

/**
 * Reads a PNG's pixels in the browser itself (a canvas decodes it), so the checks need no image library: how much of
 * it is drawn, and how many pixels carry each given colour.
 */
const pixelStats = async (page: Page, png: Buffer, wanted: readonly (readonly number[])[]): Promise<PixelStats> =>
  page.evaluate(
    async ({ dataUrl, wanted }) => {
      const { Image, document } = globalThis as unknown as CanvasGlobals;
      const image = new Image();
      image.src = dataUrl;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, image.width, image.height);
      let inked = 0;
      const near = wanted.map(() => 0);
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
        if (r < 235 || g < 235 || b < 235) {
          inked += 1;
        }
        wanted.forEach((c, j) => {
          if (Math.abs(r - c[0]) + Math.abs(g - c[1]) + Math.abs(b - c[2]) < 40) {
            near[j] += 1;
          }
        });
      }
      return { width: image.width, height: image.height, inked: inked / (data.length / 4), near };
    },
    { dataUrl: `data:image/png;base64,${png.toString('base64')}`, wanted: wanted.map((c) => [...c]) },
  );

/**
 * Real: the built CLI (two rollouts of the IT-desk example, one by a trap agent that grants too much), PostgreSQL,
 * the Temporal dev server, the api as main.ts builds it (serving the built console), Debian's Chromium driven by
 * playwright-core, and poppler's pdftoppm and pdftotext. Mocked: nothing.
 */
describe('reviewer console and reports', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let env: NodeJS.ProcessEnv;
  let dataSource: DataSource;
  let app: INestApplication;
  let base: string;
  let trap: RolloutOutput;
  let oracle: RolloutOutput;
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-console-'));

  const count = async (sql: string): Promise<number> =>
    Number((await dataSource.query<{ n: string }[]>(`SELECT count(*) AS n FROM ${sql}`))[0].n);
  const written = async () => ({
    annotations: await count('review_annotations'),
    signOffs: await count('rollout_signoffs'),
    audit: await count('audit_entries'),
  });
  /** A reviewer's key of the tenant the rollouts ran in, made as the operator makes keys. */
  let reviewerKey: string;
  /** How the evidence trail and the pages name that reviewer. */
  let reviewerActor: string;
  const api = (route: string, init: RequestInit = {}) =>
    fetch(`${base}${route}`, {
      ...init,
      headers: { ...bearer(reviewerKey), ...(init.headers ?? {}) },
    });
  const post = (route: string, body: unknown, contentType = 'application/json') =>
    api(route, {
      method: 'POST',
      headers: { 'Content-Type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    env = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_DATA_DIR: path.join(writeBundle({}), 'data'),
    };
    const rollout = async (agent: string, trials: string): Promise<RolloutOutput> => {
      const result = await runCli(
        ['rollout', 'examples/halden-it', '--agent', agent, '--tasks', 'folder-access@1', '--trials', trials, '--json'],
        env,
      );
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as RolloutOutput;
    };
    oracle = await rollout('oracle', '1');
    trap = await rollout('trap:grants-editor', '2');
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    const reviewer = await issueApiKey(dataSource, loadConfig({}).MIRROR_TENANT, 'reviewer');
    reviewerKey = reviewer.token;
    reviewerActor = `key:${reviewer.id}`;
    app = await createApiApp(loadConfig({ DATABASE_URL: database.url }), dataSource, false);
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer() as { address(): AddressInfo }).address().port}`;
  });

  afterAll(async () => {
    await app?.close();
    await dataSource?.destroy();
    await database.drop();
  });

  it('serves the console: the list filters, the rollout page charts and signs off, the episode page shows the evidence in place and takes annotations', async () => {
    const trapEpisode = trap.episodes[0].episodeId;
    await withChromium(async (context: BrowserContext) => {
      const page = await context.newPage();
      await page.setViewportSize({ width: 1200, height: 900 });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));

      // Without a key the console says what it needs; the reviewer's key, given in the form, opens the tenant's rollouts.
      await page.goto(`${base}/console/#/rollouts`);
      await page.locator('p.page-error').waitFor();
      expect(await page.locator('p.page-error').textContent()).toMatch(/API key/);
      // An empty key is not sent; a wrong one is the api's reason, with a way to forget it.
      await page.locator('form.api-key button[type=submit]').click();
      await expect(page.locator('form.api-key .form-error').innerText()).resolves.toContain('enter an API key');
      await page.locator('form.api-key input[name=key]').fill('mk_0123456789abcdef_not-a-secret');
      await page.locator('form.api-key button[type=submit]').click();
      await page.locator('nav.top .session.refused').waitFor();
      await expect(page.locator('nav.top .session.refused').innerText()).resolves.toContain('not a Mirror API key');
      await page.locator('button.api-key-forget').click();
      await page.locator('form.api-key input[name=key]').waitFor();
      await page.locator('form.api-key input[name=key]').fill(reviewerKey);
      await page.locator('form.api-key button[type=submit]').click();
      await page.locator('button.api-key-forget').waitFor();
      await expect(page.locator('nav.top .session').innerText()).resolves.toContain(`${reviewerActor} (reviewer)`);

      // The list: both rollouts, then only the failed one; a malformed filter is the api's message, not a blank page.
      await page.locator('table.rollout-list tbody tr').nth(1).waitFor();
      expect(await page.locator('table.rollout-list tbody tr').count()).toBe(2);
      await page.locator('select[name=outcome]').selectOption('failed');
      await page.locator('form.filters button[type=submit]').click();
      await page.waitForURL(/outcome=failed/);
      // The rows shown are those of the filter in the address (the list marks which), not the previous list's.
      const failedRows = page.locator('.rollout-results[data-query="outcome=failed"] table.rollout-list tbody tr');
      await failedRows.first().waitFor();
      await expect(failedRows.count()).resolves.toBe(1);
      await expect(failedRows.first().innerText()).resolves.toContain('trap:grants-editor');
      await expect(page.locator('.badge.severity-major').first().isVisible()).resolves.toBe(true);
      await page.goto(`${base}/console/#/rollouts?from=2026-13-45`);
      await expect(page.locator('.page-error').innerText()).resolves.toContain('from must be a date');

      // The rollout page: pass^k, the chart drawn (bars in the chart's colour), the violated rule with its clause.
      await page.goto(`${base}/console/#/rollouts/${trap.rollout.id}`);
      const chart = page.locator('svg.reward-chart');
      await chart.waitFor();
      expect(await chart.isVisible()).toBe(true);
      await expect(page.locator('.violation').innerText()).resolves.toMatch(/least-role[\s\S]*§1\.1 Least privilege/);
      const chartShot = await chart.screenshot({ path: path.join(shots, 'reward-chart.png') });
      const chartPixels = await pixelStats(page, chartShot, [colours.bar]);
      expect(chartPixels.inked).toBeGreaterThan(0.03);
      expect(chartPixels.near[0]).toBeGreaterThan(200);

      // The report through the api, as the console downloads it (with the key): a PDF whose text has the rule.
      const [pdfDownload] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('.report-downloads button[data-format=pdf]').click(),
      ]);
      expect(pdfDownload.suggestedFilename()).toBe(`rollout-${trap.rollout.id}.pdf`);
      const downloaded = path.join(shots, 'rollout.pdf');
      await pdfDownload.saveAs(downloaded);
      expect(fs.readFileSync(downloaded).subarray(0, 5).toString()).toBe('%PDF-');
      expect(execFileSync('pdftotext', ['-layout', downloaded, '-']).toString()).toContain('§1.1 Least privilege');

      // Sign-off: refused without a decision (nothing saved), then approved, then refused a second time.
      const before = await written();
      await page.locator('form.sign-off-form button[type=submit]').click();
      await expect(page.locator('form.sign-off-form .form-error').innerText()).resolves.toContain(
        'decision: must be approved or rejected (400)',
      );
      expect(await written()).toEqual(before);
      await page.locator('form.sign-off-form select[name=decision]').selectOption('approved');
      await page.locator('form.sign-off-form textarea[name=comment]').fill('Reviewed the least-role evidence.');
      await page.locator('form.sign-off-form button[type=submit]').click();
      await page.locator('.sign-off.approved').waitFor();
      await expect(page.locator('.sign-off.approved').innerText()).resolves.toContain(`${reviewerActor} (reviewer)`);
      expect(await written()).toEqual({ ...before, signOffs: 1, audit: before.audit + 1 });
      // Bound to what the page showed: the rollout's close, its hash and root as the console sent them.
      const [bound] = await dataSource.query<{ closure: unknown; hash: string; root: string }[]>(
        `SELECT s.details->'closure' AS closure, c.hash, c.details->>'merkleRoot' AS root
         FROM audit_entries s JOIN audit_entries c ON c.tenant_id = s.tenant_id AND c.action = 'rollout.closed'
           AND c.subject_id = s.subject_id
         WHERE s.action = 'rollout.signed_off' AND s.subject_id = $1`,
        [trap.rollout.id],
      );
      expect(bound.closure).toMatchObject({ entryHash: bound.hash, merkleRoot: bound.root });
      await expect(page.locator('.closure .merkle-root').innerText()).resolves.toBe(bound.root);
      await page.locator('form.sign-off-form select[name=decision]').selectOption('approved');
      await page.locator('form.sign-off-form button[type=submit]').click();
      await expect(page.locator('form.sign-off-form .form-error').innerText()).resolves.toContain('already signed');

      // The episode page: the failed verdict, its evidence marked and the call that wrote it outlined in place.
      await page.goto(`${base}/console/#/episodes/${trapEpisode}`);
      const verdict = page.locator('.verdict-fail', { hasText: 'least-role' });
      await verdict.waitFor();
      await expect(verdict.locator('mark').innerText()).resolves.toContain('col_new1');
      const evidenceCall = page.locator('tr.call.evidence');
      expect(await evidenceCall.count()).toBe(1);
      await expect(evidenceCall.innerText()).resolves.toContain('post_collaborations');
      // The built-in agent's reads, recorded beside the log: listed under the same caller as its write.
      const agentActor = (await evidenceCall.locator('td').nth(2).innerText()).trim();
      const agentReads = page.locator('section.quiet-calls tr.quiet-call', { hasText: agentActor });
      expect(await agentReads.count()).toBeGreaterThan(0);
      await expect(agentReads.first().innerText()).resolves.toMatch(/GET \//);
      const recorded = await count(`episode_calls WHERE episode_id = '${trapEpisode}'`);
      expect(await page.locator('section.quiet-calls tr.quiet-call').count()).toBe(Math.min(recorded, 2000));
      await verdict.locator('a', { hasText: 'the call' }).click();
      await expect(evidenceCall.isVisible()).resolves.toBe(true);
      const callPixels = await pixelStats(page, await evidenceCall.screenshot(), [colours.bad]);
      expect(callPixels.near[0]).toBeGreaterThan(100);
      const markPixels = await pixelStats(page, await verdict.screenshot(), [colours.mark]);
      expect(markPixels.near[0]).toBeGreaterThan(100);
      await expect(page.locator('.chat-message').first().innerText()).resolves.toMatch(/access/i);
      // People and channels by name, from the world the episode's seed builds; their ids kept in the title.
      const author = page.locator('.chat-message .author').first();
      const authorId = (await author.getAttribute('title')) ?? '';
      expect(authorId).not.toBe('');
      // A person's full name, where an id (the user's or the employee's) has no space.
      expect((await author.innerText()).trim()).toMatch(/\S\s+\S/);
      const channel = page.locator('.chat-thread .thread-head').first();
      expect((await channel.innerText()).replace(/^#\s*/, '')).not.toBe(await channel.getAttribute('title'));
      expect(await page.locator('details.record').count()).toBeGreaterThan(0);
      await page.locator('nav.top').scrollIntoViewIfNeeded();
      const episodeShot = await page.screenshot({ path: path.join(shots, 'episode.png') });
      expect((await pixelStats(page, episodeShot, [])).inked).toBeGreaterThan(0.05);
      // The README's picture of this page is this screenshot, taken again on request when the page changes.
      if (process.env.MIRROR_WRITE_DOCS_SCREENSHOT === '1') {
        fs.writeFileSync(path.join(repositoryRoot, 'docs', 'review-console-episode.png'), episodeShot);
      }

      // Annotating: an empty comment is refused with nothing saved; a dispute is shown and audited.
      const form = verdict.locator('form.annotation-form');
      const beforeAnnotation = await written();
      await form.locator('button[type=submit]').click();
      await expect(form.locator('.form-error').innerText()).resolves.toContain('comment: say why');
      expect(await written()).toEqual(beforeAnnotation);
      await form.locator('select[name=stance]').selectOption('dispute');
      await form.locator('textarea[name=comment]').fill('The requester asked for read access only.');
      await form.locator('button[type=submit]').click();
      await page.locator('.annotation.dispute').waitFor();
      await expect(page.locator('.annotation.dispute').innerText()).resolves.toContain('read access only');
      expect(await written()).toEqual({
        ...beforeAnnotation,
        annotations: 1,
        audit: beforeAnnotation.audit + 1,
      });
      expect(errors).toEqual([]);
    });
    // An admin's key annotates too: recorded as the admin it is, not as a reviewer.
    const admin = await issueApiKey(dataSource, loadConfig({}).MIRROR_TENANT, 'admin');
    const byAdmin = await fetch(`${base}/v1/review/episodes/${trapEpisode}/annotations`, {
      method: 'POST',
      headers: { ...bearer(admin.token), 'Content-Type': 'application/json' },
      body: JSON.stringify({ rule: 'least-role', stance: 'agree', comment: 'Editor was more than asked.' }),
    });
    expect([byAdmin.status, ((await byAdmin.json()) as { role: string }).role]).toEqual([201, 'admin']);
    const audited = await dataSource.query<{ action: string; actor: string; actor_kind: string; subject_id: string }[]>(
      `SELECT action, actor, actor_kind, subject_id FROM audit_entries WHERE action LIKE 'verdict.%' OR
         action = 'rollout.signed_off' ORDER BY seq`,
    );
    expect(audited).toEqual([
      {
        action: 'rollout.signed_off',
        actor: reviewerActor,
        actor_kind: 'reviewer',
        subject_id: trap.rollout.id,
      },
      { action: 'verdict.disputed', actor: reviewerActor, actor_kind: 'reviewer', subject_id: trapEpisode },
      { action: 'verdict.agreed', actor: `key:${admin.id}`, actor_kind: 'admin', subject_id: trapEpisode },
    ]);
    expect((await runCli(['audit', 'verify'], env)).code).toBe(0);
  });

  it('refuses bad input to every review endpoint with a 4xx that says what is wrong, and saves nothing', async () => {
    const episode = trap.episodes[0].episodeId;
    const annotations = `/v1/review/episodes/${episode}/annotations`;
    const signOffs = `/v1/review/rollouts/${oracle.rollout.id}/sign-offs`;
    const before = await written();
    const refusals: [Promise<Response>, number, RegExp][] = [
      [api('/v1/review/rollouts?colour=red'), 400, /unknown filter colour/],
      [api('/v1/review/rollouts?from=2026-02-30'), 400, /from must be a date/],
      [api('/v1/review/rollouts?from=2026-03-02&to=2026-03-01'), 400, /is after to/],
      [api('/v1/review/rollouts?severity=catastrophic'), 400, /severity must be one of/],
      [api('/v1/review/rollouts?outcome=maybe'), 400, /outcome must be passed or failed/],
      [api('/v1/review/rollouts?agent=a&agent=b'), 400, /agent must be given once/],
      [api('/v1/review/rollouts/not-an-id'), 404, /no rollout/],
      [api('/v1/review/rollouts/00000000-0000-4000-8000-000000000000'), 404, /no rollout/],
      [api('/v1/review/episodes/00000000-0000-4000-8000-000000000000'), 404, /no episode/],
      [api('/v1/review/episodes/../../etc/passwd'), 404, /./],
      [api('/v1/review/episodes/not-an-id/report'), 404, /no episode/],
      [api(`/v1/review/episodes/${episode}/report.html`), 404, /Cannot GET/],
      [api(`/v1/review/episodes/${episode}/report?format=docx`), 400, /format: must be html or pdf, not "docx"/],
      [api(`/v1/review/episodes/${episode}/report?format=html&format=pdf`), 400, /format: give it once/],
      [api(`/v1/review/rollouts/${oracle.rollout.id}/report?format=pdf&inline=1`), 400, /inline: unknown parameter/],
      [api('/v1/review/rollouts/00000000-0000-4000-8000-000000000000/report?format=pdf'), 404, /no rollout/],
      [fetch(`${base}/v1/review/rollouts/${oracle.rollout.id}/report?format=pdf`), 401, /missing API key/],
      [fetch(`${base}/v1/review/session`, { headers: { Authorization: 'Bearer mk_nope_nope' } }), 401, /./],
      [post(annotations, '{"rule":'), 400, /JSON/i],
      [post(annotations, 'rule=least-role', 'application/x-www-form-urlencoded'), 400, /JSON object/],
      [post(annotations, [1, 2]), 400, /JSON object/],
      [
        post(annotations, { rule: 'least-role', stance: 'agree', comment: 'ok', extra: 1 }),
        400,
        /extra: unknown field/,
      ],
      [
        post(annotations, { rule: 'least-role', stance: 'maybe', comment: 'ok' }),
        400,
        /stance: must be agree or dispute/,
      ],
      [post(annotations, { rule: 'least-role', stance: 'agree', comment: '   ' }), 400, /comment: say why/],
      [post(annotations, { rule: 'least-role', stance: 'agree', comment: 'x'.repeat(4001) }), 400, /at most 4000/],
      [
        post(annotations, { rule: 'no-such-rule', stance: 'agree', comment: 'ok' }),
        400,
        /no verdict on "no-such-rule"/,
      ],
      [post(annotations, { rule: 'least-role', stance: 'agree', comment: 'x'.repeat(70_000) }), 413, /too large/i],
      [
        post('/v1/review/episodes/00000000-0000-4000-8000-000000000000/annotations', {
          rule: 'least-role',
          stance: 'agree',
          comment: 'ok',
        }),
        404,
        /no episode/,
      ],
      [post(signOffs, {}), 400, /decision: must be approved or rejected/],
      [post(signOffs, { decision: 'rejected' }), 400, /comment: say why/],
      [post(signOffs, { decision: 'approved', comment: 7 }), 400, /comment: must be text/],
      [
        post('/v1/review/rollouts/00000000-0000-4000-8000-000000000000/sign-offs', { decision: 'approved' }),
        404,
        /no rollout/,
      ],
    ];
    for (const [pending, status, message] of refusals) {
      const response = await pending;
      const body = (await response.json()) as { message: string; statusCode: number };
      expect({ url: response.url, status: response.status, statusCode: body.statusCode }).toEqual({
        url: response.url,
        status,
        statusCode: status,
      });
      expect(body.message).toMatch(message);
    }
    expect(await written()).toEqual(before);
  });

  it('writes the rollout report as one self-contained HTML file and as a PDF whose pages show the chart and the evidence', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-report-'));
    const html = path.join(directory, 'rollout.html');
    const pdf = path.join(directory, 'rollout.pdf');
    expect((await runCli(['report', 'rollout', trap.rollout.id, '-o', html], env)).code).toBe(0);
    const text = fs.readFileSync(html, 'utf8');
    expect(text).toMatch(/^<!doctype html>/);
    expect(text).toContain('§1.1 Least privilege');
    expect(text).toContain('<svg class="reward-chart"');
    expect(text).toContain('id=col_new1 table=collaborations');
    // Self-contained: no script, no stylesheet or image fetched from anywhere.
    expect(text).not.toMatch(/<script|<link|\ssrc=/i);
    // The api serves the same file (the generation time aside) to a reviewer's key.
    const served = await api(`/v1/review/rollouts/${trap.rollout.id}/report?format=html`);
    expect([served.status, served.headers.get('content-disposition')]).toEqual([
      200,
      `attachment; filename="rollout-${trap.rollout.id}.html"`,
    ]);
    const generated = /generated [^·]+·/g;
    expect((await served.text()).replace(generated, '')).toBe(text.replace(generated, ''));

    const printed = await runCli(['report', 'rollout', trap.rollout.id, '--format', 'pdf', '-o', pdf], env);
    expect(printed.code).toBe(0);
    expect(fs.readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', pdf, path.join(directory, 'page')]);
    const page1 = fs.readFileSync(path.join(directory, 'page-1.png'));
    const pdfText = execFileSync('pdftotext', ['-layout', pdf, '-']).toString();
    expect(pdfText).toMatch(/pass\^k/);
    expect(pdfText).toContain('least-role');
    expect(pdfText).toContain('§1.1 Least privilege');
    // The episode of each failed trial is an appendix: its conversation and calls are in the PDF too.
    expect(pdfText).toContain('post_collaborations');
    await withChromium(async (context) => {
      const page = await context.newPage();
      const stats = await pixelStats(page, page1, [colours.bar, colours.mark]);
      expect(stats.width).toBeGreaterThan(400);
      expect(stats.inked).toBeGreaterThan(0.03);
      expect(stats.near[0]).toBeGreaterThan(100);
      expect(stats.near[1]).toBeGreaterThan(20);
    });

    // Bad input: a clear message, exit 2, and no file.
    const missing = path.join(directory, 'missing.html');
    const unknown = await runCli(['report', 'rollout', '00000000-0000-4000-8000-000000000000', '-o', missing], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no rollout 00000000-0000-4000-8000-000000000000');
    expect((await runCli(['report', 'stack', trap.rollout.id, '-o', missing], env)).stderr).toContain(
      'kinds: rollout, episode',
    );
    expect((await runCli(['report', 'rollout', trap.rollout.id, '-f', 'docx', '-o', missing], env)).code).toBe(2);
    expect(fs.existsSync(missing)).toBe(false);
  });
});
