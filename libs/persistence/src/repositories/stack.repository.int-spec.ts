import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';
import type { StackModel } from '@libs/stack-ingestion';

import { createDataSource } from '../data-source';
import { StackRepository } from './stack.repository';

/** Real: PostgreSQL with the committed migrations. Mocked: nothing. */
const model = (name: string, title = 'API'): StackModel => ({
  format: 1,
  name,
  services: [],
  entities: [],
  relations: [],
  samples: [],
  scenarios: [],
  warnings: [{ location: 'api.yaml:1', file: 'api.yaml', line: 1, pointer: '', message: title }],
});

describe(StackRepository.name, () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let sut: StackRepository;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    sut = new StackRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it('stores a version once: saving the same content again is a no-op', async () => {
    const first = await sut.saveVersion('acme', 'a'.repeat(64), model('erp'));
    const second = await sut.saveVersion('acme', 'a'.repeat(64), model('erp'));
    expect(first.created).toBe(true);
    expect(second).toEqual({ ...first, created: false });
    const [{ count }] = await dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM stack_versions',
    );
    expect(count).toBe(1);
  });

  it('adds a version when the content changes and returns the newest as latest', async () => {
    const first = await sut.saveVersion('acme', 'b'.repeat(64), model('crm', 'v1'));
    const second = await sut.saveVersion('acme', 'c'.repeat(64), model('crm', 'v2'));
    expect(second.stackId).toBe(first.stackId);
    const latest = await sut.latestVersion('acme', first.stackId);
    expect(latest?.version).toBe('c'.repeat(64));
    expect(latest?.model.warnings[0].message).toBe('v2');
  });

  it('keeps tenants apart', async () => {
    const mine = await sut.saveVersion('tenant-a', 'd'.repeat(64), model('shared-name'));
    const theirs = await sut.saveVersion('tenant-b', 'd'.repeat(64), model('shared-name'));
    expect(theirs.stackId).not.toBe(mine.stackId);
    await expect(sut.findStack('tenant-b', mine.stackId)).resolves.toBeNull();
    await expect(sut.latestVersion('tenant-b', mine.stackId)).resolves.toBeNull();
    expect((await sut.listStacks('tenant-a')).map((s) => s.name)).toEqual(['shared-name']);
  });

  it('finds a version by a unique prefix and refuses an ambiguous or malformed one', async () => {
    await sut.saveVersion('prefixes', 'abcdef01'.padEnd(64, '1'), model('p1'));
    await sut.saveVersion('prefixes', 'abcdef02'.padEnd(64, '2'), model('p2'));
    await expect(sut.findVersion('prefixes', 'abcdef01')).resolves.toMatchObject({
      version: 'abcdef01'.padEnd(64, '1'),
    });
    await expect(sut.findVersion('prefixes', 'abcdef0')).resolves.toBeNull();
    await expect(sut.findVersion('prefixes', "abcdef01' OR 1=1 --")).resolves.toBeNull();
  });
});
