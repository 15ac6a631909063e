import type { LoggedEvent } from '@libs/twin-engine';

import type { FieldChange, RecordDiff } from './review-view-models';

/** An HTML id for a record: its table and id with anything but letters, digits and dashes made an underscore. */
export const recordAnchor = (table: string, id: string) => `r-${`${table}/${id}`.replace(/[^A-Za-z0-9-]/g, '_')}`;

type Fields = { [field: string]: unknown };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const fieldChanges = (before: Fields | undefined, after: Fields | undefined): FieldChange[] =>
  [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])]
    .sort()
    .filter((field) => !same(before?.[field], after?.[field]))
    .map((field) => ({ field, before: before?.[field] ?? null, after: after?.[field] ?? null }));

interface Tracked {
  table: string;
  id: string;
  /** The record as Mirror's setup left it before the episode first changed it: the diff's "before". */
  baseline?: Fields;
  /** Whether the episode (not setup) created it. */
  created: boolean;
  last?: Fields;
  deleted: boolean;
  /** The episode's changes to it (setup's are not the episode's). */
  seqs: number[];
  /** Whether the record was in the world before the episode and its setup. */
  fromSeed?: boolean;
}

/** The scenario's own setup writes (its task records), which make the state the episode starts from. */
export const setupOperation = '_mirror.setup';

/** A record of the world the episode was seeded with, by table and id (undefined: not seeded, or not known). */
export type SeededRecord = (table: string, id: string) => Fields | undefined;

/**
 * What the episode changed in the twins, record by record, from its log, against the state it started from: a
 * record it created or deleted field by field, one it changed by the fields that changed. The seeded world is not in
 * the log; its records' values before the episode come from `seeded` (the world rebuilt from its seed). Without it,
 * a seeded record the episode changed is shown as it ended, its before unknown.
 */
export const stateDiff = (log: readonly LoggedEvent[], seeded?: SeededRecord): RecordDiff[] => {
  const records = new Map<string, Tracked>();
  for (const { seq, operationId, event } of log) {
    if (
      event.type !== 'record.created' &&
      event.type !== 'record.updated' &&
      event.type !== 'record.replaced' &&
      event.type !== 'record.deleted'
    ) {
      continue;
    }
    const key = `${event.table}\u0000${event.id}`;
    const record = event.type === 'record.deleted' ? undefined : event.record;
    const tracked = records.get(key) ?? { table: event.table, id: event.id, created: false, deleted: false, seqs: [] };
    records.set(key, tracked);
    if (operationId === setupOperation && tracked.seqs.length === 0) {
      tracked.baseline = record;
      tracked.last = record;
      continue;
    }
    if (tracked.seqs.length === 0 && tracked.baseline === undefined) {
      tracked.created = event.type === 'record.created';
      tracked.fromSeed = !tracked.created;
      tracked.baseline = tracked.created ? undefined : seeded?.(event.table, event.id);
      tracked.last = tracked.baseline;
    }
    tracked.seqs.push(seq);
    tracked.deleted = event.type === 'record.deleted';
    if (record) {
      tracked.last = record;
    }
  }
  return [...records.values()]
    .filter((r) => r.seqs.length > 0 && !(r.created && r.deleted))
    .map((r) => ({
      anchor: recordAnchor(r.table, r.id),
      table: r.table,
      id: r.id,
      change: r.deleted ? 'deleted' : r.created ? 'created' : 'updated',
      seqs: r.seqs,
      seeded: r.fromSeed === true,
      beforeKnown: r.created || r.baseline !== undefined,
      fields: r.deleted ? fieldChanges(r.last, undefined) : fieldChanges(r.created ? undefined : r.baseline, r.last),
    }));
};

/** The tables of the seeded records the episode changed: those whose values before it only the world's seed holds. */
export const seededTables = (log: readonly LoggedEvent[]): Set<string> =>
  new Set(
    stateDiff(log)
      .filter((r) => r.seeded)
      .map((r) => r.table),
  );
