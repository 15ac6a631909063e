import * as fs from 'node:fs';
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { createApiApp } from '@api/bootstrap';
import { loadConfig } from '@libs/config';
import { merkleRoot } from '@libs/evidence-trail';
import { createDataSource } from '@libs/persistence';
import type { RolloutEpisodeResult, RolloutReport } from '@libs/rollouts';
import { bearer, issueApiKey } from '@test/support/api-keys';
import { writeBundle } from '@test/support/bundle-fixtures';
import { repositoryRoot, runCli } from '@test/support/cli-runner';
import { testInstanceKey } from '@test/support/instance-key';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

interface RolloutOutput {
  rollout: { id: string; agent: string; tasks: string[]; trials: number; status: string };
  report: RolloutReport;
  episodes: RolloutEpisodeResult[];
}

/**
 * Real: the built CLI as a process, PostgreSQL, the Temporal dev server, the IT-desk example; then the control plane
 * as main.ts builds it, on the same database, through supertest. Mocked: nothing.
 */
describe('mirror rollout', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_DATA_DIR: path.join(writeBundle({}), 'data'),
    };
  });

  afterAll(() => database.drop());

  it('plays every task × trial with the oracle, reports pass@k and pass^k, and the API serves what it stored', async () => {
    const result = await runCli(
      [
        'rollout',
        'examples/halden-it',
        '--agent',
        'oracle',
        '--tasks',
        'all',
        '--trials',
        '2',
        '--concurrency',
        '2',
        '--seeds',
        '2',
        '--json',
      ],
      env,
    );
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as RolloutOutput;
    expect(output.rollout.tasks).toHaveLength(6);
    expect(output.rollout.tasks.filter((t) => t.endsWith('@1'))).toHaveLength(3);
    expect(output.episodes).toHaveLength(12);
    expect(new Set(output.episodes.map((e) => `${e.task}#${e.trial}`)).size).toBe(12);
    expect(new Set(output.episodes.map((e) => e.episodeId)).size).toBe(12);
    expect(output.report.overall).toMatchObject({
      tasks: 6,
      episodes: 12,
      graded: 12,
      passed: 12,
      infrastructureErrors: 0,
    });
    expect(output.report.overall.passAt).toEqual({ '1': 1, '2': 1 });
    expect(output.report.overall.passHat).toEqual({ '1': 1, '2': 1 });
    expect(output.report.overall.reward.mean).toBeGreaterThan(0.75);
    expect(output.report.overall.violations).toEqual({});
    expect(output.report.flagged.map((f) => f.flag)).toEqual(Array(6).fill('mostly-passed'));

    const dataSource: DataSource = createDataSource(database.url);
    await dataSource.initialize();
    const app: INestApplication = await createApiApp(loadConfig({ DATABASE_URL: database.url }), dataSource, false);
    await app.init();
    const auth = bearer((await issueApiKey(dataSource, 'default', 'trainer')).token);
    try {
      const list = await request(app.getHttpServer()).get('/v1/rollouts').set(auth).expect(200);
      expect(list.body).toMatchObject({ total: 1, offset: 0, limit: 50 });
      expect((list.body as { rollouts: { id: string; status: string }[] }).rollouts).toEqual([
        expect.objectContaining({ id: output.rollout.id, status: 'completed', agent: 'oracle', trials: 2 }),
      ]);
      const one = await request(app.getHttpServer()).get(`/v1/rollouts/${output.rollout.id}`).set(auth).expect(200);
      expect(one.body).toMatchObject({ id: output.rollout.id, bundle: 'halden-it', report: output.report });
      expect((one.body as { episodes: RolloutEpisodeResult[] }).episodes).toEqual(output.episodes);
      await request(app.getHttpServer()).get('/v1/rollouts/00000000-0000-4000-8000-000000000000').set(auth).expect(404);
      await request(app.getHttpServer()).get('/v1/rollouts/not-an-id').set(auth).expect(404);
      await request(app.getHttpServer()).get('/v1/rollouts?limit=ten').set(auth).expect(400);
    } finally {
      await app.close();
      await dataSource.destroy();
    }

    // The rollout's evidence: opened, 12 trials with their gradings, closed; exported and verified offline.
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-evidence-')), 'rollout.json');
    expect((await runCli(['audit', 'export', 'rollout', output.rollout.id, '-o', file], env)).code).toBe(0);
    const bundle = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      entries: { action: string; actor: string; hash: string; details: Record<string, unknown> }[];
      episodes: unknown[];
    };
    const actions = bundle.entries.map((e) => e.action);
    // Its close committed to every entry before it: the Merkle root over them, in chain order.
    const before = bundle.entries.slice(0, -1);
    expect(bundle.entries[bundle.entries.length - 1].details).toMatchObject({
      entries: before.length,
      merkleRoot: merkleRoot(before.map((e) => e.hash)),
    });
    expect(actions.filter((a) => a === 'rollout.trial_recorded')).toHaveLength(12);
    expect(actions.filter((a) => a === 'episode.graded')).toHaveLength(12);
    expect([actions[0], actions[actions.length - 1]]).toEqual(['rollout.opened', 'rollout.closed']);
    // Opened by the person at the command line, played and closed by Mirror's rollout runner.
    expect(bundle.entries[0].actor).toBe(`cli:${os.userInfo().username}`);
    expect(bundle.entries[bundle.entries.length - 1].actor).toBe('mirror:rollouts');
    expect(bundle.episodes).toHaveLength(12);
    expect((await runCli(['audit', 'verify', '--bundle', file], { DATABASE_URL: '' })).code).toBe(0);
  });

  it('counts the violations a trap is caught by, and flags a task it never passes', async () => {
    const result = await runCli(
      ['rollout', 'examples/halden-it', '--agent', 'trap:grants-editor', '--tasks', 'folder-access@1', '--trials', '2'],
      env,
    );
    expect(result.code).toBe(0);
    // Not a terminal: the report without a progress bar.
    expect(result.stderr).not.toContain('trials ·');
    expect(result.stdout).toMatch(/^task\s+trials\s+passed\s+pass@1\s+pass@2\s+pass\^2/);
    expect(result.stdout).toMatch(/folder-access@1\s+2\s+0\/2\s+0 %\s+0 %\s+0 %.*never-passed/);
    expect(result.stdout).toMatch(/least-role\s+2/);
  });

  it('is taken up by another command after the one that started it is killed mid-rollout, every trial once', async () => {
    const child = spawn(
      process.execPath,
      [
        path.join(repositoryRoot, 'bin', 'mirror.js'),
        'rollout',
        'examples/halden-it',
        '--agent',
        'oracle',
        '--tasks',
        'folder-access@3,outside-share-request@3',
        '--trials',
        '2',
      ],
      { cwd: repositoryRoot, env: { MIRROR_INSTANCE_KEY: testInstanceKey, ...process.env, ...env } },
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    let stderr = '';
    const id = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /rollout ([0-9a-f-]{36}):/.exec(stderr);
        if (found) {
          resolve(found[1]);
        }
      });
      child.on('exit', (code) => reject(new Error(`the rollout ended (${code}) before it began: ${stderr}`)));
    });
    const dataSource: DataSource = createDataSource(database.url);
    await dataSource.initialize();
    try {
      const recorded = async () =>
        Number(
          (
            await dataSource.query<{ count: string }[]>(
              'SELECT count(*) AS count FROM rollout_episodes WHERE rollout_id = $1',
              [id],
            )
          )[0].count,
        );
      while ((await recorded()) < 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // Mid-rollout, a trial in flight: the process, its worker and its episodes' worker die at once.
      child.kill('SIGKILL');
      await exited;
      expect(await recorded()).toBeLessThan(4);

      const resumed = await runCli(['rollout', 'examples/halden-it', '--resume', id, '--json'], env);
      expect(resumed.code).toBe(0);
      const output = JSON.parse(resumed.stdout) as RolloutOutput;
      expect(output.rollout).toMatchObject({ id, status: 'completed', agent: 'oracle', trials: 2 });
      expect(output.episodes.map((e) => `${e.task}#${e.trial}`)).toEqual([
        'folder-access@3#1',
        'folder-access@3#2',
        'outside-share-request@3#1',
        'outside-share-request@3#2',
      ]);
      expect(new Set(output.episodes.map((e) => e.episodeId)).size).toBe(4);
      expect(output.report.overall).toMatchObject({ episodes: 4, graded: 4, passed: 4, infrastructureErrors: 0 });

      // Resuming a finished rollout prints its stored report and plays nothing.
      const again = await runCli(['rollout', 'examples/halden-it', '--resume', id, '--json'], env);
      expect(JSON.parse(again.stdout)).toEqual(output);
    } finally {
      child.kill('SIGKILL');
      await dataSource.destroy();
    }
  });

  it('refuses tasks and agents the bundle cannot give, naming them, before playing anything', async () => {
    const unknownTask = await runCli(['rollout', 'examples/halden-it', '--agent', 'oracle', '--tasks', 'nope@1'], env);
    expect(unknownTask.code).toBe(2);
    expect(unknownTask.stderr).toMatch(/no scenario "nope"; the stack has folder-access/);
    const unknownTrap = await runCli(['rollout', 'examples/halden-it', '--agent', 'trap:nope', '--json'], env);
    expect(unknownTrap.code).toBe(2);
    expect(JSON.parse(unknownTrap.stdout)).toEqual({
      errors: [expect.objectContaining({ message: expect.stringMatching(/has no trap "nope" \(its traps: /) })],
    });
    const neither = await runCli(['rollout', 'examples/halden-it'], env);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give --agent for a new rollout, or --resume <rollout-id>');
    const unknownRollout = await runCli(
      ['rollout', 'examples/halden-it', '--resume', '00000000-0000-4000-8000-000000000000'],
      env,
    );
    expect(unknownRollout.code).toBe(2);
    expect(unknownRollout.stderr).toContain('--resume: no rollout 00000000-0000-4000-8000-000000000000');
    const badTrials = await runCli(['rollout', 'examples/halden-it', '--agent', 'idle', '--trials', '0'], env);
    expect(badTrials.code).toBe(2);
    expect(badTrials.stderr).toContain('--trials must be an integer from 1 to 100');
  });
});
