/**
 * The twins' event log as grading reads it: structurally the engine's `LoggedEvent`, so the graders depend on the
 * log's shape, not on the engine.
 */
export interface LogEntry {
  seq: number;
  at: string;
  /** Who caused it, by credentials (an employee id, or an outside party's address). */
  actor?: string;
  event: { type: string } & Record<string, unknown>;
}

/** A domain event (`email.sent`, `erp.po.approved`), or a write the twin refused (`operation.refused`). */
export interface GradedEvent {
  seq: number;
  at: string;
  actor?: string;
  name: string;
  data: Record<string, unknown>;
}

/** A change to a record of the twins' state, with the whole record after it. */
export interface RecordChange {
  seq: number;
  at: string;
  actor?: string;
  /** The state key: `<service>/<table>`. */
  table: string;
  id: string;
  change: 'created' | 'updated' | 'deleted';
  record?: Record<string, unknown>;
}

export interface EpisodeLog {
  events: GradedEvent[];
  changes: RecordChange[];
  lastSeq: number;
  lastAt?: string;
}

/** One pass over the log: what happened in the products' terms, and what changed. */
export const readEpisodeLog = (entries: readonly LogEntry[]): EpisodeLog => {
  const events: GradedEvent[] = [];
  const changes: RecordChange[] = [];
  for (const entry of entries) {
    const event = entry.event;
    const base = { seq: entry.seq, at: entry.at, ...(entry.actor !== undefined ? { actor: entry.actor } : {}) };
    if (event.type === 'domain') {
      events.push({ ...base, name: String(event.name), data: (event.data as Record<string, unknown>) ?? {} });
    } else if (event.type === 'operation.refused') {
      const { type: _type, ...data } = event;
      events.push({ ...base, name: 'operation.refused', data });
    } else if (event.type.startsWith('record.')) {
      changes.push({
        ...base,
        table: String(event.table),
        id: String(event.id),
        change: event.type === 'record.created' ? 'created' : event.type === 'record.deleted' ? 'deleted' : 'updated',
        ...(event.record ? { record: event.record as Record<string, unknown> } : {}),
      });
    }
  }
  const last = entries[entries.length - 1];
  return { events, changes, lastSeq: last?.seq ?? 0, ...(last ? { lastAt: last.at } : {}) };
};
