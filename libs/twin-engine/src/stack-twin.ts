import type { StackModel } from '@libs/stack-ingestion';
import { buildWorld, Company, World, WorldSizes, WorldTable } from '@libs/synthetic-data';

import { PackRegistry, PackRow, TwinPack } from './packs/twin-pack';
import { postgrestTwin } from './postgrest/postgrest-twin';
import { ServiceTwin } from './service-twin';

export class UnknownPackError extends Error {}

const packFor = (packs: PackRegistry, pack: string | undefined): TwinPack | undefined => {
  if (pack === undefined) {
    return undefined;
  }
  const found = packs.get(pack);
  if (!found) {
    throw new UnknownPackError(
      `the stack uses twin pack "${pack}", which this process does not have (it has ${[...packs.keys()].join(', ') || 'none'})`,
    );
  }
  return found;
};

const tableOf = (rows: PackRow[]): WorldTable => {
  const childrenOf = new Map<string, string[]>();
  const parentOf = new Map<string, string>();
  for (const row of rows) {
    if (row.parentId !== undefined) {
      parentOf.set(row.id, row.parentId);
      const siblings = childrenOf.get(row.parentId) ?? [];
      siblings.push(row.id);
      childrenOf.set(row.parentId, siblings);
    }
  }
  return {
    ids: rows.map((row) => row.id),
    records: new Map(rows.map((row) => [row.id, row.record])),
    parentOf,
    childrenOf,
  };
};

/** Every service of a stack compiled against one world: built once per (stack version, seed, sizes), then shared. */
export class StackTwin {
  readonly services: ReadonlyMap<string, ServiceTwin>;

  constructor(
    readonly model: StackModel,
    readonly world: World,
    packs: PackRegistry = new Map(),
  ) {
    this.services = new Map(
      model.services.map((service) => [
        service.name,
        new ServiceTwin(
          service,
          world.seed,
          service.tables ? postgrestTwin(model, service) : packFor(packs, service.pack),
          world.company,
        ),
      ]),
    );
  }

  /** The generic world of the stack's own specs, plus each pack's tables seeded from the company, under `<service>/`. */
  static build(
    model: StackModel,
    stackVersion: string,
    seed: number,
    sizes: WorldSizes,
    packs: PackRegistry = new Map(),
  ): StackTwin {
    const generic = buildWorld(model, stackVersion, seed, sizes);
    const tables = new Map(generic.tables);
    let recordCount = generic.recordCount;
    for (const [key, table] of generic.company ? packTables(model, generic.company, seed, packs) : []) {
      tables.set(key, table);
      recordCount += table.ids.length;
    }
    return new StackTwin(model, { ...generic, tables, recordCount }, packs);
  }
}

/**
 * Each pack's tables seeded from the company, under `<service>/`: what a world holds beside the generic records of the
 * stack's own specs. Much cheaper than those, so a reader that needs only the packs' records (people, channels)
 * builds only these.
 */
export const packTables = (
  model: StackModel,
  company: Company,
  seed: number,
  packs: PackRegistry,
): Map<string, WorldTable> => {
  const tables = new Map<string, WorldTable>();
  for (const service of model.services) {
    const pack = packFor(packs, service.pack);
    if (!pack) {
      continue;
    }
    for (const [name, rows] of Object.entries(pack.seed(company, seed))) {
      tables.set(`${service.name}/${name}`, tableOf(rows));
    }
  }
  return tables;
};
