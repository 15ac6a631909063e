import type { World } from '@libs/synthetic-data';

import type { EpisodeEvent } from './episode-events';

/**
 * What a JSON byte costs once parsed into V8 objects (property maps, strings, map entries): about 1.4 on Node 20 for
 * the example company's worlds (RSS grew ~6.6 MB a world against 4.6 MB of JSON; `npm run bench -- --only=memory`
 * prints both). The budget is an estimate either way: what matters is that it grows with what is held.
 */
const heapBytesPerJsonByte = 1.5;

/** The fixed part of an episode in memory: its objects, clock, fault injector and read memo. */
export const episodeBaseBytes = 64 * 1024;

/** The fixed part of a world in memory: its compiled services (routers, validators, templates). */
const worldBaseBytes = 256 * 1024;

const jsonBytes = (value: unknown): number => JSON.stringify(value)?.length ?? 0;

/** Roughly what an event adds to an episode's state: the record it carries, or the answer it keeps. */
export const eventHeapBytes = (event: EpisodeEvent): number => {
  switch (event.type) {
    case 'record.created':
    case 'record.replaced':
    case 'record.updated':
      return 96 + jsonBytes(event.record) * heapBytesPerJsonByte;
    case 'idempotency.recorded':
      return 96 + jsonBytes(event.response) * heapBytesPerJsonByte;
    case 'record.deleted':
      return 64;
    default:
      return 0;
  }
};

/** Roughly what a world's records cost in memory, measured once when it is built. */
export const worldHeapBytes = (world: World): number => {
  let bytes = worldBaseBytes;
  for (const table of world.tables.values()) {
    for (const record of table.records.values()) {
      bytes += 96 + jsonBytes(record) * heapBytesPerJsonByte;
    }
  }
  return bytes;
};
