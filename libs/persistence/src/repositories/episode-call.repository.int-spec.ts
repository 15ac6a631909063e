import { DataSource } from 'typeorm';

import type { ObservedCall } from '@libs/twin-engine';
import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { EpisodeCallLog } from '../episode-call-log';
import { EpisodeCallRepository } from './episode-call.repository';

const own = '11111111-1111-4111-8111-111111111111';
const foreign = '22222222-2222-4222-8222-222222222222';

const call = (episodeId: string, tenantId: string, afterSeq: number, path: string): ObservedCall => ({
  tenantId,
  episodeId,
  afterSeq,
  at: '2026-06-01T09:00:00.000Z',
  service: 'erp',
  method: 'GET',
  path,
  operationId: 'listSuppliers',
  status: 200,
  actor: 'E1',
});

/** Real: PostgreSQL with the committed migrations. Mocked: nothing. */
describe(EpisodeCallLog.name, () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let sut: EpisodeCallRepository;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    sut = new EpisodeCallRepository(dataSource);
    for (const [id, tenant] of [
      [own, 'own'],
      [foreign, 'foreign'],
    ]) {
      await dataSource.query(
        `INSERT INTO episodes (id, tenant_id, stack_version, seed, secret, sizes) VALUES ($1, $2, $3, 1, 's', '{}')`,
        [id, tenant, 'a'.repeat(64)],
      );
    }
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it('writes buffered calls in the order answered, each under its own tenant, and none under another', async () => {
    const errors: string[] = [];
    const log = new EpisodeCallLog(sut, (message) => errors.push(message));
    log.observe(call(own, 'own', 3, '/suppliers?page=2'));
    log.observe(call(own, 'own', 1, '/suppliers'));
    log.observe(call(foreign, 'foreign', 1, '/suppliers?foreign=1'));
    // A call claiming another tenant's episode is not stored under either.
    log.observe(call(foreign, 'own', 1, '/suppliers?claimed=1'));
    log.observe(call(own, 'own', 1, '/suppliers?page=1'));
    await log.close();

    expect(errors).toEqual([]);
    const stored = await sut.calls('own', own, 10);
    expect(stored.map((c) => [c.afterSeq, c.path])).toEqual([
      [1, '/suppliers'],
      [1, '/suppliers?page=1'],
      [3, '/suppliers?page=2'],
    ]);
    expect(stored[0]).toEqual({ ...call(own, 'own', 1, '/suppliers'), tenantId: undefined });
    await expect(sut.count('own', own)).resolves.toBe(3);
    await expect(sut.calls('own', foreign, 10)).resolves.toEqual([]);
    await expect(sut.calls('foreign', own, 10)).resolves.toEqual([]);
    expect((await sut.calls('foreign', foreign, 10)).map((c) => c.path)).toEqual(['/suppliers?foreign=1']);
    await expect(sut.calls('own', own, 2)).resolves.toHaveLength(2);
  });

  it('drops and counts what it cannot write, saying so, and never throws at the caller', async () => {
    const errors: string[] = [];
    const log = new EpisodeCallLog(sut, (message) => errors.push(message));
    log.observe({ ...call(own, 'own', 1, '/x'), status: 100_000 });
    await log.close();
    expect(log.dropped).toBe(1);
    expect(errors).toEqual([expect.stringContaining('1 calls that changed nothing were not recorded (1 so far)')]);
  });
});
