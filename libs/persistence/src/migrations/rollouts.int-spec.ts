import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { RolloutRepository } from '../repositories/rollout.repository';

/** Real: PostgreSQL with the committed migrations, reverted and applied again. Mocked: nothing. */
describe('the rollouts migration and repository', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  const plan = {
    id: '6f1d8a54-3c1e-4a43-9b8e-2f5b4f1c0a11',
    stackVersion: 'c'.repeat(64),
    bundle: 'desk',
    agent: 'oracle',
    tasks: ['b@2', 'a@1'],
    trials: 2,
    concurrency: 1,
  };
  const trial = (task: string, n: number, episodeId: string | null = null) => ({
    task,
    trial: n,
    episodeId,
    status: 'failed',
    passed: false,
    reward: 0.25,
    violations: ['rule-x'],
    reason: 'r',
  });

  it('keeps a trial’s first record, lists trials in the plan’s order, and answers only its tenant', async () => {
    const sut = new RolloutRepository(dataSource);
    await sut.open('t1', plan);
    await sut.open('t1', { ...plan, agent: 'changed' });
    await sut.recordEpisode('t1', plan.id, trial('a@1', 1));
    await sut.recordEpisode('t1', plan.id, trial('b@2', 2));
    await sut.recordEpisode('t1', plan.id, trial('b@2', 1));
    await expect(sut.recordEpisode('t1', plan.id, { ...trial('b@2', 1), reward: 1 })).resolves.toMatchObject({
      reward: 0.25,
    });
    expect((await sut.episodes('t1', plan.id)).map((e) => `${e.task}#${e.trial}`)).toEqual(['b@2#1', 'b@2#2', 'a@1#1']);
    await expect(sut.find('t1', plan.id)).resolves.toMatchObject({ agent: 'oracle', status: 'running', report: null });
    await expect(sut.find('t2', plan.id)).resolves.toBeUndefined();
    await expect(sut.episodes('t2', plan.id)).resolves.toEqual([]);
    await expect(sut.list('t2', { offset: 0, limit: 10 })).resolves.toEqual({ rollouts: [], total: 0 });
    // Another tenant's worker can neither read a trial, add one, nor close the rollout.
    await expect(sut.episode('t2', plan.id, 'b@2', 1)).resolves.toBeUndefined();
    await expect(sut.recordEpisode('t2', plan.id, trial('c@3', 1))).rejects.toThrow(
      `tenant t2 has no rollout ${plan.id}`,
    );
    await sut.close('t2', plan.id, 'completed', null);
    await expect(sut.find('t1', plan.id)).resolves.toMatchObject({ status: 'running' });
    expect(await sut.episodes('t1', plan.id)).toHaveLength(3);
    await sut.close('t1', plan.id, 'cancelled', null);
    // Closed once: a late close (a retried activity) does not reopen or rewrite it.
    await sut.close('t1', plan.id, 'completed', null);
    await expect(sut.list('t1', { offset: 0, limit: 10 })).resolves.toMatchObject({
      rollouts: [{ id: plan.id, status: 'cancelled', stackVersion: plan.stackVersion }],
      total: 1,
    });
  });

  it('reverts and applies again', async () => {
    // Migrations after this one (other features') are reverted first, as `mirror db revert` would.
    const applied = async () =>
      (await dataSource.query<{ name: string }[]>('SELECT name FROM migrations')).some((m) =>
        m.name.startsWith('CreateRollouts'),
      );
    while (await applied()) {
      await dataSource.undoLastMigration({ transaction: 'each' });
    }
    await expect(dataSource.query('SELECT 1 FROM rollouts')).rejects.toThrow(/does not exist/);
    await dataSource.runMigrations({ transaction: 'each' });
    await expect(dataSource.query('SELECT count(*) FROM rollouts')).resolves.toEqual([{ count: '0' }]);
  });
});
