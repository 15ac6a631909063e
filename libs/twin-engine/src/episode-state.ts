import type { World, WorldRecord, WorldTable } from '@libs/synthetic-data';

import { EpisodeEvent, LoggedEvent, RecordedResponse } from './episode-events';
import { eventHeapBytes } from './memory-estimate';

/** What an episode changed in one table of its world. */
interface TableOverlay {
  upserts: Map<string, WorldRecord>;
  deleted: Set<string>;
  /** Ids created in this episode, in creation order. */
  added: string[];
  /** The same per parent, so a nested listing (a channel's messages) never scans the whole table. */
  addedByParent: Map<string, string[]>;
  parentOf: Map<string, string>;
}

const emptyIds: readonly string[] = [];
/** How many keyed clock moves an episode remembers: more than one workflow task makes between two of its answers. */
const keyedClockMovesKept = 64;

/**
 * An episode's view of its world: a copy-on-write overlay. Forking a fresh episode allocates two empty maps, never a
 * copy of the world; reads fall through to the shared, immutable world unless the episode changed that record.
 */
export class EpisodeState {
  private readonly overlays = new Map<string, TableOverlay>();
  private lastSeq = 0;
  private counters = new Map<string, number>();
  /** The last clock jump: its time (ms) and the sequence number it happened at; none means the world's clock. */
  private clockBase: { at: number; seq: number } | undefined;
  /**
   * The latest keyed clock moves, key → the time moved to: a move sent again (its answer lost, or the workflow task
   * that made it replayed on another worker) gets its first answer and moves nothing.
   */
  readonly keyedClockMoves = new Map<string, string>();
  private ended = false;
  /** Answers to writes sent with an idempotency key, by key. */
  private readonly answered = new Map<string, { response: RecordedResponse; scope?: string }>();

  /** Roughly what the overlay holds: what the engine's memory budget weighs the episode by. */
  private heldBytes = 0;

  constructor(readonly world: World) {}

  get approximateBytes(): number {
    return this.heldBytes;
  }

  get seq(): number {
    return this.lastSeq;
  }

  table(key: string): WorldTable | undefined {
    return this.world.tables.get(key);
  }

  get(key: string, id: string): WorldRecord | undefined {
    const overlay = this.overlays.get(key);
    if (overlay) {
      if (overlay.deleted.has(id)) {
        return undefined;
      }
      const changed = overlay.upserts.get(id);
      if (changed) {
        return changed;
      }
    }
    return this.world.tables.get(key)?.records.get(id);
  }

  parentOf(key: string, id: string): string | undefined {
    return this.overlays.get(key)?.parentOf.get(id) ?? this.world.tables.get(key)?.parentOf.get(id);
  }

  /** Ids in list order (world first, then created), optionally only the children of one parent. */
  ids(key: string, parentId?: string): string[] {
    const table = this.world.tables.get(key);
    const base = parentId === undefined ? (table?.ids ?? emptyIds) : (table?.childrenOf.get(parentId) ?? emptyIds);
    const overlay = this.overlays.get(key);
    if (!overlay) {
      return base as string[];
    }
    const added = parentId === undefined ? overlay.added : (overlay.addedByParent.get(parentId) ?? emptyIds);
    const all = added.length > 0 ? [...base, ...added] : (base as string[]);
    return overlay.deleted.size > 0 ? all.filter((id) => !overlay.deleted.has(id)) : all;
  }

  /**
   * Ids newest first (created in the episode, then the world's, each in reverse), without copying a list: what a
   * "latest N" read walks, so it costs N however long the history grows.
   */
  *newestFirst(key: string, parentId?: string): Generator<string> {
    const table = this.world.tables.get(key);
    const base = parentId === undefined ? (table?.ids ?? emptyIds) : (table?.childrenOf.get(parentId) ?? emptyIds);
    const overlay = this.overlays.get(key);
    const added = !overlay
      ? emptyIds
      : parentId === undefined
        ? overlay.added
        : (overlay.addedByParent.get(parentId) ?? emptyIds);
    for (const ids of [added, base]) {
      for (let i = ids.length - 1; i >= 0; i--) {
        if (!overlay?.deleted.has(ids[i])) {
          yield ids[i];
        }
      }
    }
  }

  /** A per-table counter for server-assigned ids; part of the state so that replay reproduces it. */
  nextCounter(key: string): number {
    const next = (this.counters.get(key) ?? 0) + 1;
    this.counters.set(key, next);
    return next;
  }

  apply(logged: LoggedEvent): void {
    this.lastSeq = logged.seq;
    this.heldBytes += eventHeapBytes(logged.event);
    if (logged.event.type === 'episode.closed') {
      this.ended = true;
    }
    if (logged.event.type === 'clock.set') {
      this.clockBase = { at: Date.parse(logged.event.at), seq: logged.seq };
      if (logged.event.key !== undefined) {
        this.keyedClockMoves.set(logged.event.key, logged.event.at);
        if (this.keyedClockMoves.size > keyedClockMovesKept) {
          this.keyedClockMoves.delete(this.keyedClockMoves.keys().next().value as string);
        }
      }
    }
    if (logged.event.type === 'idempotency.recorded') {
      this.answered.set(logged.event.key, { response: logged.event.response, scope: logged.event.scope });
    }
    this.applyEvent(logged.event);
  }

  /** Whether the episode has ended: its twins refuse writes. */
  get closed(): boolean {
    return this.ended;
  }

  /** The recorded answer to a write with this idempotency key, if it was made. */
  answerFor(key: string): { response: RecordedResponse; scope?: string } | undefined {
    return this.answered.get(key);
  }

  /** The episode's time at a sequence number: the world's start plus a second an event, or on from the last jump. */
  timeAt(seq: number, worldStart: number): number {
    return this.clockBase ? this.clockBase.at + (seq - this.clockBase.seq) * 1000 : worldStart + seq * 1000;
  }

  private applyEvent(event: EpisodeEvent): void {
    if (
      event.type === 'operation.called' ||
      event.type === 'operation.refused' ||
      event.type === 'episode.closed' ||
      event.type === 'domain' ||
      event.type === 'clock.set' ||
      event.type === 'idempotency.recorded'
    ) {
      return;
    }
    const overlay = this.overlay(event.table);
    switch (event.type) {
      case 'record.created':
        overlay.added.push(event.id);
        overlay.deleted.delete(event.id);
        overlay.upserts.set(event.id, event.record);
        if (event.parentId !== undefined) {
          overlay.parentOf.set(event.id, event.parentId);
          const siblings = overlay.addedByParent.get(event.parentId);
          if (siblings) {
            siblings.push(event.id);
          } else {
            overlay.addedByParent.set(event.parentId, [event.id]);
          }
        }
        this.counters.set(event.table, Math.max(this.counters.get(event.table) ?? 0, overlay.added.length));
        return;
      case 'record.replaced':
      case 'record.updated':
        overlay.upserts.set(event.id, event.record);
        return;
      case 'record.deleted':
        overlay.upserts.delete(event.id);
        overlay.deleted.add(event.id);
        return;
    }
  }

  private overlay(key: string): TableOverlay {
    let overlay = this.overlays.get(key);
    if (!overlay) {
      overlay = { upserts: new Map(), deleted: new Set(), added: [], addedByParent: new Map(), parentOf: new Map() };
      this.overlays.set(key, overlay);
    }
    return overlay;
  }

  /** Everything the episode changed, as plain data: what tests compare before and after a restart. */
  fingerprint(): Record<string, { upserts: [string, WorldRecord][]; deleted: string[]; added: string[] }> {
    return Object.fromEntries(
      [...this.overlays.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, overlay]) => [
          key,
          { upserts: [...overlay.upserts.entries()], deleted: [...overlay.deleted].sort(), added: overlay.added },
        ]),
    );
  }
}
