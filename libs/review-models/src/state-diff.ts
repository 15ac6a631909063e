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
  created: boolean;
  last?: Fields;
  deleted: boolean;
  seqs: number[];
}

/**
 * What the episode changed in the twins, record by record, from its log. A record it created is shown field by field
 * as it ended; one it deleted, as it was last logged. The seeded world is not in the log, so a seeded record the
 * episode changed is marked `seeded` and shown as it ended.
 */
export const stateDiff = (log: readonly LoggedEvent[]): RecordDiff[] => {
  const records = new Map<string, Tracked>();
  for (const { seq, event } of log) {
    if (
      event.type !== 'record.created' &&
      event.type !== 'record.updated' &&
      event.type !== 'record.replaced' &&
      event.type !== 'record.deleted'
    ) {
      continue;
    }
    const key = `${event.table}\u0000${event.id}`;
    const tracked = records.get(key) ?? {
      table: event.table,
      id: event.id,
      created: event.type === 'record.created',
      deleted: false,
      seqs: [],
    };
    tracked.seqs.push(seq);
    if (event.type === 'record.deleted') {
      tracked.deleted = true;
    } else {
      tracked.last = event.record;
      tracked.deleted = false;
    }
    records.set(key, tracked);
  }
  return [...records.values()]
    .filter((r) => !(r.created && r.deleted))
    .map((r) => ({
      anchor: recordAnchor(r.table, r.id),
      table: r.table,
      id: r.id,
      change: r.deleted ? 'deleted' : r.created ? 'created' : 'updated',
      seqs: r.seqs,
      seeded: !r.created,
      fields: r.deleted ? fieldChanges(r.last, undefined) : fieldChanges(undefined, r.last),
    }));
};
