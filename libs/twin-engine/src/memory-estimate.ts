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

/**
 * Records whose JSON is measured per table: a table's records share one shape, so a spread of them tells its size
 * about as well as all of them (serialising every record of every fresh world was ~1 % of the host's busy time).
 */
const sampledRecords = 16;

/** Roughly what a world's records cost in memory, estimated once when it is built. */
export const worldHeapBytes = (world: World): number => {
  let bytes = worldBaseBytes;
  for (const table of world.tables.values()) {
    const count = table.records.size;
    // Evenly spread over the table: records made later (a generator's tail) are measured as much as the first.
    const step = Math.max(1, Math.floor(count / sampledRecords));
    let json = 0;
    let measured = 0;
    let index = 0;
    for (const record of table.records.values()) {
      if (index++ % step === 0) {
        json += jsonBytes(record);
        measured++;
      }
    }
    bytes += measured === 0 ? 0 : count * (96 + (json / measured) * heapBytesPerJsonByte);
  }
  return bytes;
};
