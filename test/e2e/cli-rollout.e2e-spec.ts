import * as path from 'node:path';

import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { createApiApp } from '@api/bootstrap';
import { loadConfig } from '@libs/config';
import { createDataSource } from '@libs/persistence';
import type { RolloutEpisodeResult, RolloutReport } from '@libs/rollouts';
import { writeBundle } from '@test/support/bundle-fixtures';
import { runCli } from '@test/support/cli-runner';
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
    try {
      const list = await request(app.getHttpServer()).get('/v1/rollouts').expect(200);
      expect(list.body).toMatchObject({ total: 1, offset: 0, limit: 50 });
      expect((list.body as { rollouts: { id: string; status: string }[] }).rollouts).toEqual([
        expect.objectContaining({ id: output.rollout.id, status: 'completed', agent: 'oracle', trials: 2 }),
      ]);
      const one = await request(app.getHttpServer()).get(`/v1/rollouts/${output.rollout.id}`).expect(200);
      expect(one.body).toMatchObject({ id: output.rollout.id, bundle: 'halden-it', report: output.report });
      expect((one.body as { episodes: RolloutEpisodeResult[] }).episodes).toEqual(output.episodes);
      await request(app.getHttpServer()).get('/v1/rollouts/00000000-0000-4000-8000-000000000000').expect(404);
      await request(app.getHttpServer()).get('/v1/rollouts/not-an-id').expect(404);
      await request(app.getHttpServer()).get('/v1/rollouts?limit=ten').expect(400);
    } finally {
      await app.close();
      await dataSource.destroy();
    }
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

  it('refuses tasks and agents the bundle cannot give, naming them, before playing anything', async () => {
    const unknownTask = await runCli(['rollout', 'examples/halden-it', '--agent', 'oracle', '--tasks', 'nope@1'], env);
    expect(unknownTask.code).toBe(2);
    expect(unknownTask.stderr).toMatch(/no scenario "nope"; the bundle has folder-access/);
    const unknownTrap = await runCli(['rollout', 'examples/halden-it', '--agent', 'trap:nope', '--json'], env);
    expect(unknownTrap.code).toBe(2);
    expect(JSON.parse(unknownTrap.stdout)).toEqual({
      errors: [expect.objectContaining({ message: expect.stringMatching(/has no trap "nope" \(its traps: /) })],
    });
    const badTrials = await runCli(['rollout', 'examples/halden-it', '--agent', 'idle', '--trials', '0'], env);
    expect(badTrials.code).toBe(2);
    expect(badTrials.stderr).toContain('--trials must be an integer from 1 to 100');
  });
});
