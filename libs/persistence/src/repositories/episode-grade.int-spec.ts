import { randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { EpisodeGradeRepository, EpisodeNotInTenantError } from './episode-grade.repository';
import { PostgresEpisodeStore } from './postgres-episode.store';

/** Real: PostgreSQL with the committed migrations. Mocked: nothing. */
describe('runs and grades belong to their episode’s tenant', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  const episodeOf = async (tenantId: string): Promise<string> => {
    const id = randomUUID();
    await new PostgresEpisodeStore(dataSource).createEpisode({
      id,
      tenantId,
      stackVersion: 'a'.repeat(64),
      seed: 1,
      secret: randomUUID(),
      sizes: { recordsPerResource: 1, childrenPerParent: 1 },
    });
    return id;
  };
  const run = (episodeId: string) => ({
    episodeId,
    scenarioId: 'renewal',
    scenarioFile: 'scenarios/renewal.yaml',
    seed: 7,
    agent: 'diligent',
    outcome: { ended: true },
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it('reads a tenant’s run and grades only as that tenant', async () => {
    const sut = new EpisodeGradeRepository(dataSource);
    const episodeId = await episodeOf('north');
    await sut.saveRun('north', run(episodeId));
    await sut.saveGrade('north', episodeId, 'p@1', 'g1', { reward: 1 });

    await expect(sut.findRun('north', episodeId)).resolves.toMatchObject({ agent: 'diligent', seed: 7 });
    await expect(sut.grades('north', episodeId)).resolves.toEqual([
      expect.objectContaining({ policies: 'p@1', grade: { reward: 1 } }),
    ]);
    await expect(sut.findRun('south', episodeId)).resolves.toBeUndefined();
    await expect(sut.grades('south', episodeId)).resolves.toEqual([]);
  });

  it('refuses to store a run or a grade for another tenant’s episode, and stores nothing', async () => {
    const sut = new EpisodeGradeRepository(dataSource);
    const episodeId = await episodeOf('north');

    await expect(sut.saveRun('south', run(episodeId))).rejects.toThrow(EpisodeNotInTenantError);
    await expect(sut.saveGrade('south', episodeId, 'p@1', 'g1', { reward: 0 })).rejects.toThrow(
      `tenant south has no episode ${episodeId}`,
    );
    await expect(sut.saveGrade('north', randomUUID(), 'p@1', 'g1', {})).rejects.toThrow(EpisodeNotInTenantError);

    const stored = await dataSource.query<{ n: number }[]>(
      `SELECT (SELECT count(*) FROM episode_runs WHERE episode_id = $1)::int
            + (SELECT count(*) FROM episode_grades WHERE episode_id = $1)::int AS n`,
      [episodeId],
    );
    expect(stored).toEqual([{ n: 0 }]);
  });
});
