import type { World } from '@libs/synthetic-data';
import type { LoggedEvent } from '@libs/twin-engine';

/** Ids of people, channels and other records, by what people call them: shown in their place, ids kept beside. */
export type NameDirectory = ReadonlyMap<string, string>;

type Fields = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim().length > 0 ? value : undefined;

/*
 * A record's name by the fields records of people and places carry, a person's full name first: a chat user's
 * `real_name` (or its profile's) before the handle in `name`.
 */
const nameOf = (record: Fields): string | undefined => {
  const profile = record.profile as Fields | undefined;
  return (
    text(record.real_name) ??
    text(profile?.real_name) ??
    text(record.full_name) ??
    text(record.display_name) ??
    text(record.name)
  );
};

/**
 * Names of the ids an episode's conversation uses: the company's people, every record of the seeded world with an id
 * and a name, and the records the episode itself created or changed (a channel it opened), the latest name winning.
 */
export const nameDirectory = (world: World | undefined, log: readonly LoggedEvent[]): NameDirectory => {
  const names = new Map<string, string>();
  for (const person of world?.company?.employees ?? []) {
    names.set(person.id, person.name);
  }
  for (const table of world?.tables.values() ?? []) {
    for (const [id, record] of table.records) {
      const name = nameOf(record);
      if (name && (record.id === undefined || text(record.id) === id)) {
        names.set(id, name);
      }
    }
  }
  for (const { event } of log) {
    if (event.type === 'record.created' || event.type === 'record.updated' || event.type === 'record.replaced') {
      const name = nameOf(event.record);
      if (name) {
        names.set(event.id, name);
      }
    }
  }
  return names;
};
