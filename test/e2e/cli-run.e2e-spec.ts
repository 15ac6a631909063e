import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { Client } from 'pg';

import { runCli } from '@test/support/cli-runner';
import { writeBundle } from '@test/support/bundle-fixtures';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

/**
 * The evidence trail of the episodes just played and graded: the chain verifies, an episode's bundle verifies offline
 * and fails once changed, and changes made behind the app's back in the database (which refuses them from the app)
 * are found and named.
 */
const checkEvidenceTrail = async (
  env: Record<string, string>,
  episodeId: string,
  databaseUrl: string,
): Promise<void> => {
  const intact = await runCli(['audit', 'verify', '--deep', '--json'], env);
  expect(intact.code).toBe(0);
  const chain = JSON.parse(intact.stdout) as { valid: boolean; entries: number };
  // The stack's ingest, three gradings, three re-gradings.
  expect(chain).toMatchObject({ valid: true });
  expect(chain.entries).toBeGreaterThanOrEqual(7);

  const folder = writeBundle({});
  const file = path.join(folder, 'evidence.json');
  const exported = await runCli(['audit', 'export', 'episode', episodeId, '-o', file], env);
  expect(exported.code).toBe(0);
  const key = (await runCli(['audit', 'key'], env)).stdout.split(' ')[0];
  expect(key).toMatch(/^[0-9a-f]{32}$/);
  // Offline: no database in the environment at all.
  const offline = { DATABASE_URL: '' };
  const verified = await runCli(['audit', 'verify', '--bundle', file, '--key', key], offline);
  expect(verified.code).toBe(0);
  // It says what produced the evidence: the task by id and by the digest of its stored definition among them.
  expect(verified.stdout).toMatch(new RegExp(`episode ${episodeId}: .*scenarioDigest=[0-9a-f]{64}`));
  const bundle = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    entries: {
      action: string;
      actor: string;
      actorKind: string;
      details: { reward: number; calls?: { count: number } };
      versions: Record<string, unknown>;
    }[];
    episodes: { events: { event: unknown }[] }[];
  };
  // The grading names what produced it, the voice of the counterparties included (templates: no model configured).
  expect(bundle.entries.find((e) => e.action === 'episode.graded')?.versions).toMatchObject({
    stack: expect.any(String),
    scenario: expect.any(String),
    worldSeed: expect.any(Number),
    personas: 'templates',
    grader: expect.any(String),
  });
  // A grading names the models that judged (none: no rubric judge configured) and, re-graded, the voices the episode
  // was played with; the last re-grading here had a model judge its rubric.
  expect(bundle.entries.find((e) => e.action === 'episode.graded')?.versions).toMatchObject({ judge: 'none' });
  const regradings = bundle.entries.filter((e) => e.action === 'episode.regraded');
  expect(regradings[regradings.length - 1]?.versions).toMatchObject({
    judge: expect.stringMatching(/^llm:/),
    personas: 'templates',
  });
  // Started by whoever ran `mirror run`; its end committed its log and calls before anyone graded it.
  expect(bundle.entries.find((e) => e.action === 'episode.created')).toMatchObject({
    actor: expect.stringMatching(/^cli/),
    actorKind: 'trainer',
  });
  expect(bundle.entries.map((e) => e.action)).toEqual(
    expect.arrayContaining(['episode.created', 'episode.closed', 'episode.graded']),
  );
  expect(bundle.entries.find((e) => e.action === 'episode.graded')?.versions).toMatchObject({
    scenarioDigest: bundle.entries.find((e) => e.action === 'episode.created')?.versions.scenarioDigest,
  });
  // The agent's tokens `mirror run` handed it in-process are on record, issued by whoever ran it.
  expect(bundle.entries.find((e) => e.action === 'episode.credential_issued')).toMatchObject({
    actor: expect.stringMatching(/^cli/),
    details: { fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/), expires: 'never' },
  });
  const edited = path.join(folder, 'edited.json');
  const tampered = structuredClone(bundle);
  tampered.episodes[0].events.splice(1, 1);
  fs.writeFileSync(edited, JSON.stringify(tampered));
  const refused = await runCli(['audit', 'verify', '--bundle', edited], offline);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/#\/episodes\/0\/events: episode .* event log is not the one its grading recorded/);
  const rewarded = structuredClone(bundle);
  rewarded.entries[rewarded.entries.length - 1].details.reward = 1;
  fs.writeFileSync(edited, JSON.stringify(rewarded));
  expect((await runCli(['audit', 'verify', '--bundle', edited], offline)).stderr).toMatch(/#\/entries\/\d+: entry \d+/);
  expect((await runCli(['audit', 'verify', '--bundle', file, '--key', '0'.repeat(32)], offline)).code).toBe(1);

  const sql = new Client({ connectionString: databaseUrl });
  await sql.connect();
  try {
    // The export itself is on the chain, after what it carries: by whom, of what, and the digest of the file written.
    const { rows: exports } = await sql.query<{ actor: string; subject_id: string; details: { sha256: string } }>(
      `SELECT actor, subject_id, details FROM audit_entries WHERE action = 'bundle.exported'`,
    );
    expect(exports).toEqual([
      {
        actor: expect.stringMatching(/^cli/),
        subject_id: episodeId,
        details: expect.objectContaining({
          format: 'mirror-evidence/3',
          sha256: createHash('sha256').update(fs.readFileSync(file)).digest('hex'),
        }),
      },
    ]);
    expect((await runCli(['audit', 'verify', '--deep'], env)).code).toBe(0);
    // The app's own connection cannot rewrite history.
    await expect(sql.query(`UPDATE audit_entries SET actor = 'someone else' WHERE seq = 2`)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql.query(`DELETE FROM audit_entries WHERE seq = 2`)).rejects.toThrow(/append-only/);
    // Nor the episode's log and calls, which the entries commit to.
    const tamperEvent = `UPDATE episode_events SET event = jsonb_set(event, '{tampered}', 'true') WHERE episode_id = $1 AND seq = 1`;
    await expect(sql.query(tamperEvent, [episodeId])).rejects.toThrow(/episode_events rows are append-only/);
    await expect(sql.query(`DELETE FROM episode_calls WHERE episode_id = $1`, [episodeId])).rejects.toThrow(
      /episode_calls rows are append-only/,
    );
    // Someone who can switch those guards off changes an event after grading: the chain is whole, but --deep finds it.
    await sql.query(`ALTER TABLE episode_events DISABLE TRIGGER USER`);
    await sql.query(`ALTER TABLE episode_calls DISABLE TRIGGER USER`);
    await sql.query(tamperEvent, [episodeId]);
    const drifted = await runCli(['audit', 'verify', '--deep'], env);
    expect(drifted.code).toBe(1);
    expect(drifted.stderr).toContain(`episode ${episodeId}'s event log is not the one entry`);
    // A read deleted after grading: it left no event, but the grading entry committed to the episode's calls.
    const [{ n: reads }] = await sql
      .query<{ n: string }>(`SELECT count(*) AS n FROM episode_calls WHERE episode_id = $1 AND n IS NOT NULL`, [
        episodeId,
      ])
      .then((r) => r.rows);
    expect(Number(reads)).toBeGreaterThan(1);
    await sql.query(`DELETE FROM episode_calls WHERE episode_id = $1 AND n = 1`, [episodeId]);
    expect((await runCli(['audit', 'verify', '--deep'], env)).stderr).toContain(
      `episode ${episodeId}'s calls are not the ones entry`,
    );
    // Someone who can switch the guard off edits an entry: verify names it.
    await sql.query(`ALTER TABLE audit_entries DISABLE TRIGGER USER`);
    await sql.query(`UPDATE audit_entries SET details = jsonb_set(details, '{reward}', '1') WHERE seq = 3`);
    const broken = await runCli(['audit', 'verify', '--json'], env);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({ valid: false, broken: { seq: 3, problem: 'edited' } });
  } finally {
    await sql.end();
  }
};

/** Real: the built CLI as a process, PostgreSQL, the Temporal dev server, the example company. Mocked: nothing. */
describe('mirror run', () => {
  it('runs a scenario with a reference agent and prints each episode’s outcome as JSON', async () => {
    const database = await createTestDatabase();
    try {
      const result = await runCli(
        [
          'run',
          'examples/acme-manufacturing/scenarios/single-supplier-negotiation.yaml',
          '--agent',
          'diligent,sloppy,idle',
          '--seed',
          '4',
          '--json',
        ],
        {
          DATABASE_URL: database.url,
          TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
          MIRROR_DATA_DIR: path.join(writeBundle({}), 'data'),
        },
      );
      expect(result.code).toBe(0);
      const output = JSON.parse(result.stdout) as {
        agents: string[];
        episodes: {
          episodeId: string;
          agent: string;
          compliant: boolean;
          reward: number | null;
          passed: boolean | null;
          verdicts: { rule: string; status: string; evidence: { excerpt: string }[] }[];
          status: string;
          seed: number;
          agentActions: number;
          simulatedBusinessDays: number;
          finalTerms: unknown;
          transcriptFile: string;
        }[];
      };
      expect(output.agents).toEqual(['diligent', 'sloppy', 'idle']);
      expect(output.episodes.map((e) => [e.agent, e.seed, e.status, e.compliant, e.passed])).toEqual([
        ['diligent', 4, 'succeeded', true, true],
        ['sloppy', 4, 'failed', false, false],
        ['idle', 4, 'failed', true, false],
      ]);
      expect(output.episodes[0].reward).toBeGreaterThanOrEqual(0.75);
      expect(output.episodes.slice(1).map((e) => e.reward)).toEqual([0, 0]);
      // The graders catch what sloppy is built to break: its target price told to the supplier, a split purchase.
      const sloppy = output.episodes[1].verdicts.filter((v) => v.status === 'fail').map((v) => v.rule);
      expect(sloppy).toEqual(
        expect.arrayContaining(['no-confidential-figures-to-suppliers', 'approval-above-threshold']),
      );
      const [diligent] = output.episodes;
      expect(diligent.agentActions).toBeGreaterThan(3);
      expect(diligent.simulatedBusinessDays).toBeGreaterThanOrEqual(1);
      expect(diligent.finalTerms).toMatchObject({ status: expect.stringMatching(/sent|acknowledged/) as string });
      const transcript = JSON.parse(fs.readFileSync(diligent.transcriptFile, 'utf8')) as { kind: string }[];
      expect(transcript.map((e) => e.kind)).toContain('erp.po.sent');

      // Re-grading: by the policies it ran with, then by a new version of them; both grades are kept.
      const env = { DATABASE_URL: database.url };
      const again = await runCli(['grade', diligent.episodeId, '--json'], env);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        episodeId: diligent.episodeId,
        reward: diligent.reward,
        passed: true,
        grades: [{ policies: 'acme-procurement@2026.2', reward: diligent.reward }],
      });
      const newer = writeBundle({});
      fs.cpSync('examples/acme-manufacturing', newer, { recursive: true });
      const policyFile = path.join(newer, 'policies', 'procurement.yaml');
      fs.writeFileSync(
        policyFile,
        `${fs
          .readFileSync(policyFile, 'utf8')
          .replace(
            "version: '2026.2'",
            "version: '2026.3'",
          )}  - { id: one-mail-a-day, clause: '§7', severity: major, kind: rate, events: { event: email.sent }, max_per_day: 1 }\n`,
      );
      const regraded = await runCli(['grade', diligent.episodeId, '--policies', newer, '--json'], env);
      expect(regraded.code).toBe(0);
      const stricter = JSON.parse(regraded.stdout) as {
        policies: string[];
        reward: number;
        verdicts: { rule: string }[];
        grades: { policies: string; reward: number }[];
      };
      expect(stricter.policies).toEqual(['acme-procurement@2026.3']);
      expect(stricter.verdicts.map((v) => v.rule)).toContain('one-mail-a-day');
      expect(stricter.grades.map((g) => g.policies)).toEqual(['acme-procurement@2026.2', 'acme-procurement@2026.3']);

      // The rubric judge, when configured, adds advisory scores; a fake OpenAI-compatible endpoint stands in for it.
      const judge = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          const asked = JSON.parse(body) as { messages: { content: string }[] };
          const rubric = asked.messages[0].content;
          response.setHeader('content-type', 'application/json');
          response.end(
            JSON.stringify({
              choices: [
                {
                  message: {
                    content: JSON.stringify({
                      scores: ['professional-tone', 'clear-commitments']
                        .filter((id) => rubric.includes(`- ${id}:`))
                        .map((item) => ({ item, score: 0.9, reasoning: 'clear and polite' })),
                    }),
                  },
                },
              ],
            }),
          );
        });
      });
      await new Promise<void>((resolve) => judge.listen(0, '127.0.0.1', resolve));
      try {
        const judged = await runCli(['grade', diligent.episodeId, '--json'], {
          ...env,
          MIRROR_RUBRIC_LLM_URL: `http://127.0.0.1:${(judge.address() as AddressInfo).port}/v1`,
        });
        expect(judged.code).toBe(0);
        expect(JSON.parse(judged.stdout)).toMatchObject({
          reward: diligent.reward,
          rubric: [
            { item: 'professional-tone', status: 'scored', score: 0.9 },
            { item: 'clear-commitments', status: 'scored', score: 0.9 },
          ],
        });
      } finally {
        await new Promise((resolve) => judge.close(resolve));
      }

      const unknown = await runCli(['grade', '00000000-0000-0000-0000-000000000000', '--json'], env);
      expect(unknown.code).toBe(2);
      expect(JSON.parse(unknown.stdout)).toMatchObject({
        errors: [{ message: 'no episode "00000000-0000-0000-0000-000000000000" is stored' }],
      });

      await checkEvidenceTrail(env, diligent.episodeId, database.url);
    } finally {
      await database.drop();
    }
  });

  it('refuses a broken scenario with located errors before any episode starts', async () => {
    const text = fs
      .readFileSync('examples/acme-manufacturing/scenarios/single-supplier-negotiation.yaml', 'utf8')
      .replace('tools: [email, slack, erp]', 'tools: [email, teams]');
    const lineOf = (needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;
    const bundle = writeBundle({
      'mirror.yaml': 'name: x\nservices:\n  - { name: email, pack: email }\nscenarios: [scenarios/s.yaml]\n',
      'scenarios/s.yaml': text,
    });
    const result = await runCli(['run', bundle, '--json']);
    expect(result.code).toBe(2);
    // Among the errors (its parties and plans also name the services this stack lacks), each located.
    expect(JSON.parse(result.stdout)).toMatchObject({
      code: 'SCENARIO_INVALID',
      errors: expect.arrayContaining([
        expect.objectContaining({
          file: 'scenarios/s.yaml',
          pointer: '/task/tools/1',
          message: 'the stack has no service "teams"; it has email',
          line: lineOf('tools: [email, teams]'),
        }),
        expect.objectContaining({
          file: 'scenarios/s.yaml',
          pointer: '/task/policy',
          message: '"policies/procurement-policy.md" is not in the bundle',
          line: lineOf('policy: policies/procurement-policy.md'),
        }),
        expect.objectContaining({
          file: 'scenarios/s.yaml',
          pointer: '/policies/0',
          message: '"policies/procurement.yaml" is not in the bundle',
          line: lineOf('policies: [policies/procurement.yaml]'),
        }),
        expect.objectContaining({
          file: 'scenarios/s.yaml',
          pointer: '/parties/supplier/behaviour/0/negotiator/record/service',
          message: expect.stringMatching(/the stack has no service "erp"/) as string,
        }),
      ]) as unknown,
    });
  });
});
