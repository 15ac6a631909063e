import { DataSource, EntityManager } from 'typeorm';

import { chainStep, ChainedCallRow, genesisHash } from '@libs/evidence-trail';
import type { ObservedCall } from '@libs/twin-engine';

/** A call to an episode's twins that left no event in its log (a read, mostly), as stored. */
export type EpisodeCallRow = Omit<ObservedCall, 'tenantId'>;

/** A call as its chain hashes it and an evidence bundle carries it: the stored row with its place in the episode. */
export type ChainedCall = EpisodeCallRow & { n: number };

interface StoredRow {
  id: string;
  episode_id: string;
  n: number | null;
  prev_hash: string | null;
  hash: string | null;
  after_seq: number;
  at: Date;
  service: string;
  method: string;
  path: string;
  operation_id: string | null;
  status: number;
  actor: string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/** The row's content as read back, which is what was hashed when it was written (absent fields stay absent). */
const contentOf = (call: EpisodeCallRow): EpisodeCallRow => ({
  episodeId: call.episodeId,
  afterSeq: call.afterSeq,
  at: iso(call.at),
  service: call.service,
  method: call.method,
  path: call.path,
  ...(call.operationId !== undefined ? { operationId: call.operationId } : {}),
  status: call.status,
  ...(call.actor !== undefined ? { actor: call.actor } : {}),
});

const rowContent = (row: StoredRow): EpisodeCallRow =>
  contentOf({
    episodeId: row.episode_id,
    afterSeq: row.after_seq,
    at: iso(row.at),
    service: row.service,
    method: row.method,
    path: row.path,
    ...(row.operation_id !== null ? { operationId: row.operation_id } : {}),
    status: row.status,
    ...(row.actor !== null ? { actor: row.actor } : {}),
  });

/**
 * The calls an episode's twins answered without logging an event, beside its event log: appended in batches (one
 * statement per tenant, one array per column; a call of an episode that is not the tenant's, or no longer exists, is
 * skipped), read back in the order they were answered. Each call is chained to the one before it in its episode
 * (`n`, `prev_hash`, `hash`), so the evidence trail can commit to them all by one digest and name one changed later.
 */
export class EpisodeCallRepository {
  constructor(private readonly dataSource: DataSource) {}

  async append(tenantId: string, calls: readonly EpisodeCallRow[]): Promise<void> {
    if (calls.length === 0) {
      return;
    }
    // Each episode's last link, for the tenant's episodes only: another tenant's episode gets nothing.
    const heads = await this.dataSource.query<{ id: string; n: number | null; hash: string | null }[]>(
      `SELECT ep.id, h.n, h.hash FROM episodes ep
       LEFT JOIN LATERAL (
         SELECT c.n, c.hash FROM episode_calls c
         WHERE c.tenant_id = $1 AND c.episode_id = ep.id AND c.n IS NOT NULL ORDER BY c.n DESC LIMIT 1
       ) h ON true
       WHERE ep.tenant_id = $1 AND ep.id = ANY($2::uuid[])`,
      [tenantId, [...new Set(calls.map((c) => c.episodeId))]],
    );
    const links = new Map(heads.map((h) => [h.id, { n: h.n ?? 0, hash: h.hash ?? genesisHash }]));
    const rows = calls.flatMap((call) => {
      const head = links.get(call.episodeId);
      if (!head) {
        return [];
      }
      const content: ChainedCall = { ...contentOf(call), n: head.n + 1 };
      const hash = chainStep(head.hash, content);
      links.set(call.episodeId, { n: content.n, hash });
      return [{ content, prevHash: head.hash, hash }];
    });
    if (rows.length === 0) {
      return;
    }
    const column = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
    await this.dataSource.query(
      `INSERT INTO episode_calls
         (tenant_id, episode_id, n, prev_hash, hash, after_seq, at, service, method, path, operation_id, status, actor)
       SELECT $1, c.episode_id, c.n, c.prev_hash, c.hash, c.after_seq, c.at, c.service, c.method, c.path,
         c.operation_id, c.status, c.actor
       FROM unnest($2::uuid[], $3::int[], $4::text[], $5::text[], $6::int[], $7::timestamptz[], $8::text[], $9::text[],
         $10::text[], $11::text[], $12::smallint[], $13::text[]) WITH ORDINALITY
         AS c(episode_id, n, prev_hash, hash, after_seq, at, service, method, path, operation_id, status, actor, o)
       ORDER BY c.o`,
      [
        tenantId,
        column((r) => r.content.episodeId),
        column((r) => r.content.n),
        column((r) => r.prevHash),
        column((r) => r.hash),
        column((r) => r.content.afterSeq),
        column((r) => r.content.at),
        column((r) => r.content.service),
        column((r) => r.content.method),
        column((r) => r.content.path),
        column((r) => r.content.operationId ?? null),
        column((r) => r.content.status),
        column((r) => r.content.actor ?? null),
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
    const rows = await this.dataSource.query<StoredRow[]>(
      `SELECT * FROM episode_calls WHERE tenant_id = $1 AND episode_id = $2 ORDER BY after_seq, id LIMIT $3`,
      [tenantId, episodeId, limit],
    );
    return rows.map(rowContent);
  }

  /** The chain's last link now: how many calls it holds and its hash (none: 0 and the genesis hash). */
  /**
   * `runner`: the transaction to read in, when the caller holds one: with a pool of one connection (embedded PGlite)
   * a read through the data source would wait for that very connection forever.
   */
  async head(
    tenantId: string,
    episodeId: string,
    runner: Pick<EntityManager, 'query'> = this.dataSource,
  ): Promise<{ count: number; digest: string }> {
    const [row] = await runner.query<{ n: number; hash: string }[]>(
      `SELECT n, hash FROM episode_calls WHERE tenant_id = $1 AND episode_id = $2 AND n IS NOT NULL
       ORDER BY n DESC LIMIT 1`,
      [tenantId, episodeId],
    );
    return row ? { count: row.n, digest: row.hash } : { count: 0, digest: genesisHash };
  }

  /** Every episode of the tenant with chained calls, and how many its chain holds. */
  async chainHeads(tenantId: string): Promise<{ episodeId: string; count: number }[]> {
    const rows = await this.dataSource.query<{ episode_id: string; n: number }[]>(
      `SELECT episode_id, max(n) AS n FROM episode_calls WHERE tenant_id = $1 AND n IS NOT NULL
       GROUP BY episode_id ORDER BY episode_id`,
      [tenantId],
    );
    return rows.map((row) => ({ episodeId: row.episode_id, count: Number(row.n) }));
  }

  /** Every chained call of the episode with its link, in chain order (`n`), to verify against what was recorded. */
  async chain(tenantId: string, episodeId: string): Promise<ChainedCallRow[]> {
    const rows = await this.dataSource.query<StoredRow[]>(
      `SELECT * FROM episode_calls WHERE tenant_id = $1 AND episode_id = $2 AND n IS NOT NULL ORDER BY n, id`,
      [tenantId, episodeId],
    );
    return rows.map((row) => ({
      id: String(row.id),
      n: row.n!,
      prevHash: row.prev_hash ?? '',
      hash: row.hash ?? '',
      call: { ...rowContent(row), n: row.n! },
    }));
  }

  /** The first `count` chained calls' content, as a bundle carries them (what the digest was taken of). */
  async committed(tenantId: string, episodeId: string, count: number): Promise<ChainedCall[]> {
    const rows = await this.dataSource.query<StoredRow[]>(
      `SELECT * FROM episode_calls WHERE tenant_id = $1 AND episode_id = $2 AND n IS NOT NULL AND n <= $3
       ORDER BY n, id`,
      [tenantId, episodeId, count],
    );
    return rows.map((row) => ({ ...rowContent(row), n: row.n! }));
  }
}
