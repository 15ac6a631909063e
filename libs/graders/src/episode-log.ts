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
  for (const { seq, at, actor, event } of entries) {
    const type = event.type;
    if (type === 'domain') {
      events.push({ seq, at, actor, name: String(event.name), data: (event.data as Record<string, unknown>) ?? {} });
    } else if (type === 'operation.refused') {
      const { type: _type, ...data } = event;
      events.push({ seq, at, actor, name: 'operation.refused', data });
    } else if (type.startsWith('record.')) {
      changes.push({
        seq,
        at,
        actor,
        table: String(event.table),
        id: String(event.id),
        change: type === 'record.created' ? 'created' : type === 'record.deleted' ? 'deleted' : 'updated',
        record: event.record as Record<string, unknown> | undefined,
      });
    }
  }
  const last = entries[entries.length - 1];
  return { events, changes, lastSeq: last?.seq ?? 0, ...(last ? { lastAt: last.at } : {}) };
};
