import { randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { LiveEpisodeRepository } from '../repositories/live-episode.repository';
import { IdempotencyKeysPerTenant1765000010000 } from './1765000010000-idempotency-keys-per-tenant';

/** Real: PostgreSQL with the committed migrations, this one reverted and applied again. Mocked: nothing. */
describe('idempotency keys per tenant', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;
  let sut: LiveEpisodeRepository;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    sut = new LiveEpisodeRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  const episodeOf = async (tenant: string): Promise<string> => {
    const id = randomUUID();
    await dataSource.query(
      `INSERT INTO episodes (id, tenant_id, stack_version, seed, secret, sizes) VALUES ($1, $2, $3, 1, 's', '{}')`,
      [id, tenant, 'a'.repeat(64)],
    );
    return id;
  };

  it('never answers one tenant with the response another stored under the same key', async () => {
    const scope = 'POST /v1/episodes';
    // SHA-256 hex, as the episode API hashes bodies.
    const [sameBody, otherBody] = ['a'.repeat(64), 'b'.repeat(64)];
    const key = `shared-${randomUUID()}`;

    await expect(sut.claimKey('north', scope, key, sameBody)).resolves.toEqual({ kind: 'claimed' });
    await sut.completeKey('north', scope, key, 201, { token: 'north-token' });
    // Same key, same route, even the same body: another tenant's request is its own, performed, never replayed.
    await expect(sut.claimKey('south', scope, key, sameBody)).resolves.toEqual({ kind: 'claimed' });
    await expect(sut.claimKey('south', scope, key, sameBody)).resolves.toEqual({ kind: 'pending' });
    // North releasing its key (a failed retry) leaves south's claim alone.
    await sut.releaseKey('north', scope, key);
    await sut.completeKey('south', scope, key, 201, { token: 'south-token' });

    await expect(sut.claimKey('north', scope, key, sameBody)).resolves.toEqual({
      kind: 'replay',
      status: 201,
      response: { token: 'north-token' },
    });
    await expect(sut.claimKey('south', scope, key, sameBody)).resolves.toEqual({
      kind: 'replay',
      status: 201,
      response: { token: 'south-token' },
    });
    await expect(sut.claimKey('south', scope, key, otherBody)).resolves.toEqual({ kind: 'other-body' });
  });

  it('gives keys stored before it the tenant of the episode they name, and drops those that name none', async () => {
    const migration = new IdempotencyKeysPerTenant1765000010000();
    const runner = dataSource.createQueryRunner();
    const [north, south] = [await episodeOf('north'), await episodeOf('south')];
    try {
      await migration.down(runner);
      const keep = (scope: string, key: string, response: unknown) =>
        dataSource.query(
          `INSERT INTO idempotency_keys (scope, key, body_hash, status, response) VALUES ($1, $2, $3, $4, $5)`,
          [
            scope,
            key,
            'h'.repeat(64),
            response === null ? null : 200,
            response === null ? null : JSON.stringify(response),
          ],
        );
      await keep(`POST /v1/episodes/${north}/tool_calls`, 'by-path', { step: 1 });
      await keep('POST /v1/episodes', 'by-answer', { episode_id: south, token: 't' });
      await keep('POST /v1/episodes:group', 'by-group', { group_id: 'g', episodes: [{ episode_id: north }] });
      await keep('POST /v1/episodes', 'in-flight', null);
    } finally {
      await migration.up(runner);
      await runner.release();
    }

    const rows = await dataSource.query<{ tenant_id: string; key: string }[]>(
      `SELECT tenant_id, key FROM idempotency_keys WHERE key IN ('by-path', 'by-answer', 'by-group', 'in-flight')
       ORDER BY key`,
    );
    expect(rows).toEqual([
      { tenant_id: 'south', key: 'by-answer' },
      { tenant_id: 'north', key: 'by-group' },
      { tenant_id: 'north', key: 'by-path' },
    ]);
  });
});
