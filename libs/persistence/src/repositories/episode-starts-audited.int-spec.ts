import { randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import type { EpisodeDescriptor } from '@libs/twin-engine';
import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { AuditTrailRepository } from './audit-trail.repository';
import { PostgresEpisodeStore } from './postgres-episode.store';

/**
 * Starting an episode is a control-plane action: whoever starts one (a run, a rollout, the episode API, `serve`, the
 * gateway's operator routes), the store writes its start to the tenant's trail with the versions that make its world.
 * Real: PostgreSQL with the committed migrations. Mocked: nothing.
 */
describe('episode starts in the evidence trail', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let sut: PostgresEpisodeStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    sut = new PostgresEpisodeStore(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  const descriptor = (): EpisodeDescriptor => ({
    id: randomUUID(),
    tenantId: 'north',
    stackVersion: 'b'.repeat(64),
    seed: 42,
    secret: 'episode-secret-never-in-the-trail',
    sizes: { recordsPerResource: 5, childrenPerParent: 3 },
    scenario: { id: 'intake', seed: 7 },
  });

  it('appends one entry per episode created or forked, with its versions, never its secret', async () => {
    const trail = new AuditTrailRepository(dataSource);
    const episode = descriptor();
    await sut.createEpisode(episode);
    // A retried start of the same id stores nothing new and writes no second entry.
    await sut.createEpisode(episode);
    const fork = { ...descriptor(), forkedFrom: { episodeId: episode.id, seq: 0 } };
    await sut.forkEpisode(fork);

    const entries = await trail.forSubject('north', 'episode', episode.id);
    expect(entries).toEqual([
      expect.objectContaining({
        actorKind: 'system',
        action: 'episode.created',
        details: { sizes: episode.sizes },
        versions: { stack: episode.stackVersion, worldSeed: 42, scenario: 'intake', scenarioSeed: 7 },
      }),
    ]);
    expect(await trail.forSubject('north', 'episode', fork.id)).toEqual([
      expect.objectContaining({
        action: 'episode.forked',
        details: expect.objectContaining({ forkedFrom: fork.forkedFrom }),
      }),
    ]);
    const stored = JSON.stringify(await dataSource.query('SELECT * FROM audit_entries'));
    expect(stored).not.toContain('episode-secret-never-in-the-trail');
    await expect(trail.verify('north')).resolves.toMatchObject({ entries: 2 });
    await expect(trail.verify('north')).resolves.not.toHaveProperty('broken');
  });
});
