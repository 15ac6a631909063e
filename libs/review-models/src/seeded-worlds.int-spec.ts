import * as path from 'node:path';

import { DataSource } from 'typeorm';

import { createDataSource, ReviewedEpisodeRow, StackRepository } from '@libs/persistence';
import { ingestStack } from '@libs/stack-ingestion';
import { StackTwin } from '@libs/twin-engine';
import { createTestDatabase } from '@test/support/test-services';
import { builtInPacks } from '@twins/index';

import { stackWorlds } from './seeded-worlds';

/**
 * Real: PostgreSQL with the migrations, a stack ingested from a fixture bundle (a spec of its own, a chat pack and a
 * mail pack) and stored, the built-in packs. Mocked: nothing. The world rebuilt for a review is the twins' own.
 */
describe(stackWorlds.name, () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let version: string;
  let twins: StackTwin;
  const sizes = { recordsPerResource: 3, childrenPerParent: 2 };
  const episode = (): ReviewedEpisodeRow => ({
    id: '11111111-1111-4111-8111-111111111111',
    stackVersion: version,
    seed: 11,
    sizes,
    createdAt: '2026-12-01T00:00:00.000Z',
    scenario: null,
    forkedFrom: null,
    run: null,
    rollout: null,
    live: null,
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    const ingested = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../test/fixtures/invoice-desk'),
    });
    version = ingested.version;
    const stacks = new StackRepository(dataSource);
    await stacks.saveVersion('north', version, ingested.model);
    // As the twins build it: from the stored model (jsonb orders a schema's keys its own way, and the order in which
    // properties are synthesized makes the values).
    const stored = (await stacks.findVersion('north', version))!;
    twins = StackTwin.build(stored.model, version, 11, sizes, builtInPacks);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  const records = (world: { tables: ReadonlyMap<string, { records: ReadonlyMap<string, unknown> }> }, key: string) => [
    ...(world.tables.get(key)?.records.entries() ?? []),
  ];

  it("builds only the packs' tables and people when no seeded record of the stack's own specs is asked for", async () => {
    const sut = stackWorlds(new StackRepository(dataSource), builtInPacks);
    const packKeys = [...twins.world.tables.keys()].filter((k) => k.startsWith('chat/') || k.startsWith('mail/'));
    const genericKeys = [...twins.world.tables.keys()].filter((k) => k.startsWith('helpdesk/'));
    expect(packKeys.length).toBeGreaterThan(0);
    expect(genericKeys.length).toBeGreaterThan(0);

    const world = (await sut('north', episode(), new Set(['chat/conversations'])))!;

    expect([...world.tables.keys()].sort()).toEqual(packKeys.sort());
    for (const key of packKeys) {
      expect(records(world, key)).toEqual(records(twins.world, key));
    }
    expect(world.company?.employees).toEqual(twins.world.company?.employees);
  });

  it("builds the whole world, as the twins do, when a seeded record of the stack's own specs is asked for", async () => {
    const sut = stackWorlds(new StackRepository(dataSource), builtInPacks);
    const generic = [...twins.world.tables.keys()].find((k) => k.startsWith('helpdesk/'))!;

    const world = (await sut('north', episode(), new Set([generic])))!;

    expect([...world.tables.keys()].sort()).toEqual([...twins.world.tables.keys()].sort());
    expect(records(world, generic)).toEqual(records(twins.world, generic));
  });

  it("rebuilds nothing of another tenant's stack, nor with a pack the process lacks", async () => {
    await expect(
      stackWorlds(new StackRepository(dataSource), builtInPacks)('south', episode(), new Set()),
    ).resolves.toBeUndefined();
    await expect(
      stackWorlds(new StackRepository(dataSource), new Map())('north', episode(), new Set(['helpdesk/x'])),
    ).resolves.toBeUndefined();
  });
});
