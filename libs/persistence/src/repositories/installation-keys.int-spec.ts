import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { installationKey, instanceKey } from './installation-keys';

/** Real: PostgreSQL with the committed migrations. Mocked: nothing. */
describe('installation keys', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSources: DataSource[];

  beforeAll(async () => {
    database = await createTestDatabase();
    // Two processes' connections: the CLI and a worker starting at the same moment.
    dataSources = [createDataSource(database.url), createDataSource(database.url)];
    await Promise.all(dataSources.map((d) => d.initialize()));
  });

  afterAll(async () => {
    await Promise.all(dataSources.map((d) => d.destroy()));
    await database.drop();
  });

  it('makes one random key on first use, which every process and every later run reads', async () => {
    const first = await Promise.all(
      Array.from({ length: 8 }, (_, i) => installationKey(dataSources[i % 2], 'instance')),
    );
    expect(new Set(first).size).toBe(1);
    expect(first[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(await instanceKey(dataSources[1])).toBe(first[0]);
    expect(await installationKey(dataSources[0], 'another')).not.toBe(first[0]);
  });

  it('takes a configured key instead, to draw the same episodes in another installation', async () => {
    expect(await instanceKey(dataSources[0], 'pinned-key-0123456789')).toBe('pinned-key-0123456789');
  });
});
