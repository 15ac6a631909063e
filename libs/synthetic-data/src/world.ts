import type { ResourceShape } from '@libs/openapi-schemas';

import type { Company, CompanySizes } from './company';

export type WorldRecord = Record<string, unknown>;

/** The records of one resource in a world: ids in list order, records by id, and each record's parent. */
export interface WorldTable {
  /** The resource the table backs; absent for a twin pack's own tables (Slack's channels, a mailbox's messages). */
  shape?: ResourceShape;
  ids: readonly string[];
  records: ReadonlyMap<string, WorldRecord>;
  parentOf: ReadonlyMap<string, string>;
  /** Child ids per parent id, in list order: nested listings read this instead of scanning the table. */
  childrenOf: ReadonlyMap<string, readonly string[]>;
}

export interface WorldSizes {
  /** Records of each top-level resource. */
  recordsPerResource: number;
  /** Records of a nested resource under each parent record. */
  childrenPerParent: number;
  /** Per-resource overrides, by `service/resource` key. */
  overrides?: Record<string, number>;
  /** The company behind twin packs (people, suppliers, catalogue); defaults apply when a stack uses a pack. */
  company?: Partial<CompanySizes>;
}

export const defaultWorldSizes: WorldSizes = { recordsPerResource: 20, childrenPerParent: 3 };

/**
 * Synthetic records for every resource of a stack, deterministic from (stack version, seed, sizes). Immutable and
 * shared: every episode of the world reads it through its own overlay and never writes to it.
 */
export interface World {
  key: string;
  stackVersion: string;
  seed: number;
  sizes: WorldSizes;
  tables: ReadonlyMap<string, WorldTable>;
  recordCount: number;
  /** The one company every twin pack of the stack draws from; present when the stack uses a pack. */
  company?: Company;
}
