import type { World } from '@libs/synthetic-data';

import type { EpisodeEvent } from './episode-events';

/**
 * What a JSON byte costs once parsed into V8 objects (property maps, boxed strings, map entries): about 3 on Node 20,
 * measured on the example stacks' worlds (`npm run bench -- --only=memory` prints the estimate beside RSS). The budget
 * is an estimate either way; what matters is that it grows with what is held and never ignores a large part.
 */
const heapBytesPerJsonByte = 3;

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
