import { randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { PostgresEpisodeStore } from '../repositories/postgres-episode.store';
import { EpisodeScenarios1764500000000 } from './1764500000000-episode-scenarios';

/** Real: PostgreSQL with the committed migrations, this one undone and redone over episodes made before it. */
describe(EpisodeScenarios1764500000000.name, () => {
  let database: { url: string; drop: () => Promise<void> };
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

  it('gives episodes made before it the scenario of their run, and forks their source’s, down a chain', async () => {
    const sut = new EpisodeScenarios1764500000000();
    const runner = dataSource.createQueryRunner();
    const [played, fork, forkOfFork, bare] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    try {
      await sut.down(runner);
      const episode = (id: string, forkedFrom: string | null) =>
        dataSource.query(
          `INSERT INTO episodes (id, tenant_id, stack_version, seed, secret, sizes, forked_from, forked_at_seq)
           VALUES ($1, 't', $2, 9, 's', '{}', $3, $4)`,
          [id, 'a'.repeat(64), forkedFrom, forkedFrom ? 3 : null],
        );
      // Forks first: the back-fill must not depend on the order rows were written in.
      await episode(forkOfFork, fork);
      await episode(fork, played);
      await episode(played, null);
      await episode(bare, null);
      await dataSource.query(
        `INSERT INTO episode_runs (episode_id, scenario_id, scenario_file, seed, agent, outcome)
         VALUES ($1, 'renewal', 'scenarios/renewal.yaml', 42, 'diligent', '{}')`,
        [played],
      );
    } finally {
      await sut.up(runner);
      await runner.release();
    }

    const store = new PostgresEpisodeStore(dataSource);
    for (const id of [played, fork, forkOfFork]) {
      expect((await store.findEpisode('t', id))?.scenario).toEqual({ id: 'renewal', seed: 42 });
    }
    expect((await store.findEpisode('t', bare))?.scenario).toBeUndefined();
  });
});
