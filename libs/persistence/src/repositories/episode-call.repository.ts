import { DataSource } from 'typeorm';

import type { ObservedCall } from '@libs/twin-engine';

/** A call to an episode's twins that left no event in its log (a read, mostly), as stored. */
export type EpisodeCallRow = Omit<ObservedCall, 'tenantId'>;

const iso = (value: Date | string) => new Date(value).toISOString();

/**
 * The calls an episode's twins answered without logging an event, beside its event log: appended in batches (one
 * statement per tenant, one array per column; a call of an episode that is not the tenant's, or no longer exists, is
 * skipped), read back in the order they were answered.
 */
export class EpisodeCallRepository {
  constructor(private readonly dataSource: DataSource) {}

  async append(tenantId: string, calls: readonly EpisodeCallRow[]): Promise<void> {
    if (calls.length === 0) {
      return;
    }
    const column = <T>(pick: (call: EpisodeCallRow) => T) => calls.map(pick);
    await this.dataSource.query(
      `INSERT INTO episode_calls
         (tenant_id, episode_id, after_seq, at, service, method, path, operation_id, status, actor)
       SELECT $1, c.episode_id, c.after_seq, c.at, c.service, c.method, c.path, c.operation_id, c.status, c.actor
       FROM unnest($2::uuid[], $3::int[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::smallint[], $10::text[]) WITH ORDINALITY
         AS c(episode_id, after_seq, at, service, method, path, operation_id, status, actor, n)
       JOIN episodes ep ON ep.id = c.episode_id AND ep.tenant_id = $1
       ORDER BY c.n`,
      [
        tenantId,
        column((c) => c.episodeId),
        column((c) => c.afterSeq),
        column((c) => c.at),
        column((c) => c.service),
        column((c) => c.method),
        column((c) => c.path),
        column((c) => c.operationId ?? null),
        column((c) => c.status),
        column((c) => c.actor ?? null),
      ],
    );
  }

  async count(tenantId: string, episodeId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM episode_calls WHERE tenant_id = $1 AND episode_id = $2`,
      [tenantId, episodeId],
    );
    return Number(row.n);
  }

  /** The episode's calls in the order they were answered, the first `limit`. */
  async calls(tenantId: string, episodeId: string, limit: number): Promise<EpisodeCallRow[]> {
    const rows = await this.dataSource.query<
      {
        episode_id: string;
        after_seq: number;
        at: Date;
        service: string;
        method: string;
        path: string;
        operation_id: string | null;
        status: number;
        actor: string | null;
      }[]
    >(
      `SELECT episode_id, after_seq, at, service, method, path, operation_id, status, actor FROM episode_calls
       WHERE tenant_id = $1 AND episode_id = $2 ORDER BY after_seq, id LIMIT $3`,
      [tenantId, episodeId, limit],
    );
    return rows.map((row) => ({
      episodeId: row.episode_id,
      afterSeq: row.after_seq,
      at: iso(row.at),
      service: row.service,
      method: row.method,
      path: row.path,
      ...(row.operation_id !== null ? { operationId: row.operation_id } : {}),
      status: row.status,
      ...(row.actor !== null ? { actor: row.actor } : {}),
    }));
  }
}
