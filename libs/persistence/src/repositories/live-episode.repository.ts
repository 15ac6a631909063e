import { DataSource } from 'typeorm';

import { AuditTrailRepository } from './audit-trail.repository';

export type LiveEpisodeState = 'running' | 'ended' | 'expired' | 'deleted';

/** A live episode as stored: enough to answer for it (and refuse calls to it) after the process that ran it is gone. */
export interface LiveEpisodeRow<Result = unknown> {
  id: string;
  environment: string;
  task: string;
  groupId: string | null;
  /** SHA-256 of the episode-scoped token; the token itself is never stored. */
  tokenHash: Buffer;
  maxSteps: number;
  status: LiveEpisodeState;
  steps: number;
  truncated: boolean;
  createdAt: string;
  expiresAt: string;
  endedAt: string | null;
  result: Result | null;
}

/** One call of the agent as the trajectory keeps it, in order. */
export interface TrajectoryStepRow {
  index: number;
  at: string;
  wallMs: number;
  businessTime: string;
  call: { id: string; name: string; arguments: unknown };
  observation: { is_error: boolean; structured: Record<string, unknown>; text: string };
  /** Counted against the episode's steps (refused calls, which reach no twin, are not). */
  counted: boolean;
  /** The twins' log position before and after the call: the domain events beside it are those in between. */
  seqBefore: number;
  seqAfter: number;
}

interface Row {
  id: string;
  environment: string;
  task: string;
  group_id: string | null;
  token_hash: Buffer;
  max_steps: number;
  status: LiveEpisodeState;
  steps: number;
  truncated: boolean;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  result: unknown;
}

const fromRow = <Result>(row: Row): LiveEpisodeRow<Result> => ({
  id: row.id,
  environment: row.environment,
  task: row.task,
  groupId: row.group_id,
  tokenHash: row.token_hash,
  maxSteps: row.max_steps,
  status: row.status,
  steps: row.steps,
  truncated: row.truncated,
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at.toISOString(),
  endedAt: row.ended_at?.toISOString() ?? null,
  result: row.result as Result | null,
});

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rows of live episodes the tenant owns: a live episode is its episode's, and the episode row names the tenant. */
const owned = (tenantParameter: string) =>
  `EXISTS (SELECT 1 FROM episodes e WHERE e.id = live_episodes.id AND e.tenant_id = ${tenantParameter})`;

/**
 * Live episodes, their trajectories and the idempotency keys of the episode API. Every episode method takes the
 * tenant first and reaches rows only through an episode of that tenant.
 */
export class LiveEpisodeRepository {
  constructor(private readonly dataSource: DataSource) {}

  async create(
    tenantId: string,
    row: Omit<LiveEpisodeRow, 'steps' | 'truncated' | 'createdAt' | 'endedAt' | 'result'>,
  ): Promise<void> {
    const inserted = await this.dataSource.query<unknown[]>(
      `INSERT INTO live_episodes (id, environment, task, group_id, token_hash, max_steps, status, expires_at)
       SELECT id, $2, $3, $4, $5, $6, $7, $8 FROM episodes WHERE id = $1 AND tenant_id = $9 RETURNING id`,
      [
        row.id,
        row.environment,
        row.task,
        row.groupId,
        row.tokenHash,
        row.maxSteps,
        row.status,
        row.expiresAt,
        tenantId,
      ],
    );
    if (inserted.length === 0) {
      throw new Error(`tenant ${tenantId} has no episode ${row.id}`);
    }
  }

  async find<Result>(tenantId: string, id: string): Promise<LiveEpisodeRow<Result> | undefined> {
    if (!uuid.test(id)) {
      return undefined;
    }
    const [row] = await this.dataSource.query<Row[]>(`SELECT * FROM live_episodes WHERE id = $1 AND ${owned('$2')}`, [
      id,
      tenantId,
    ]);
    return row ? fromRow<Result>(row) : undefined;
  }

  async update(
    tenantId: string,
    id: string,
    fields: Partial<Pick<LiveEpisodeRow, 'status' | 'steps' | 'truncated' | 'expiresAt' | 'endedAt' | 'result'>>,
  ): Promise<void> {
    const columns: [string, unknown][] = [
      ['status', fields.status],
      ['steps', fields.steps],
      ['truncated', fields.truncated],
      ['expires_at', fields.expiresAt],
      ['ended_at', fields.endedAt],
      ['result', fields.result === undefined ? undefined : JSON.stringify(fields.result)],
    ];
    const set = columns.filter(([, value]) => value !== undefined);
    if (set.length === 0) {
      return;
    }
    await this.dataSource.query(
      `UPDATE live_episodes SET ${set.map(([column], i) => `"${column}" = $${i + 3}`).join(', ')}
       WHERE id = $1 AND ${owned('$2')}`,
      [id, tenantId, ...set.map(([, value]) => value)],
    );
  }

  /**
   * Marks the tenant's episode deleted and records it in the evidence trail in the same transaction, once: an episode
   * deleted again, or not the tenant's, changes nothing. The episode token is what authorises a deletion, so the
   * entry names the token's holder, the agent, with the state the episode was in.
   */
  async markDeleted(tenantId: string, id: string, endedAt?: string): Promise<void> {
    if (!uuid.test(id)) {
      return;
    }
    await this.dataSource.transaction(async (manager) => {
      const [before] = await manager.query<{ status: string; stack_version: string; seed: string }[]>(
        `SELECT l.status, e.stack_version, e.seed FROM live_episodes l JOIN episodes e ON e.id = l.id
         WHERE l.id = $1 AND e.tenant_id = $2 FOR UPDATE OF l`,
        [id, tenantId],
      );
      if (!before || before.status === 'deleted') {
        return;
      }
      await manager.query(
        `UPDATE live_episodes SET status = 'deleted', ended_at = COALESCE($2, ended_at) WHERE id = $1`,
        [id, endedAt ?? null],
      );
      await new AuditTrailRepository(this.dataSource).append(
        tenantId,
        {
          actor: `episode-token:${id}`,
          actorKind: 'agent',
          action: 'episode.deleted',
          subject: { kind: 'episode', id },
          details: { statusBefore: before.status },
          versions: { stack: before.stack_version, worldSeed: Number(before.seed) },
        },
        manager,
      );
    });
  }

  /** Records a call and the episode's new step count together: a trajectory never disagrees with its episode. */
  async appendStep(
    tenantId: string,
    id: string,
    step: TrajectoryStepRow,
    episode: { steps: number; expiresAt: string },
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const inserted = await manager.query<unknown[]>(
        `INSERT INTO live_episode_steps
           (episode_id, index, at, wall_ms, business_time, call, observation, counted, seq_before, seq_after)
         SELECT id, $2, $3, $4, $5, $6, $7, $8, $9, $10 FROM live_episodes WHERE id = $1 AND ${owned('$11')}
         RETURNING episode_id`,
        [
          id,
          step.index,
          step.at,
          step.wallMs,
          step.businessTime,
          JSON.stringify(step.call),
          JSON.stringify(step.observation),
          step.counted,
          step.seqBefore,
          step.seqAfter,
          tenantId,
        ],
      );
      if (inserted.length === 0) {
        throw new Error(`tenant ${tenantId} has no live episode ${id}`);
      }
      await manager.query('UPDATE live_episodes SET steps = $2, expires_at = $3 WHERE id = $1', [
        id,
        episode.steps,
        episode.expiresAt,
      ]);
    });
  }

  async steps(tenantId: string, id: string): Promise<TrajectoryStepRow[]> {
    if (!uuid.test(id)) {
      return [];
    }
    const rows = await this.dataSource.query<
      {
        index: number;
        at: Date;
        wall_ms: number;
        business_time: string;
        call: TrajectoryStepRow['call'];
        observation: TrajectoryStepRow['observation'];
        counted: boolean;
        seq_before: number;
        seq_after: number;
      }[]
    >(
      `SELECT s.* FROM live_episode_steps s JOIN episodes e ON e.id = s.episode_id
       WHERE s.episode_id = $1 AND e.tenant_id = $2 ORDER BY s.index`,
      [id, tenantId],
    );
    return rows.map((r) => ({
      index: r.index,
      at: r.at.toISOString(),
      wallMs: r.wall_ms,
      businessTime: r.business_time,
      call: r.call,
      observation: r.observation,
      counted: r.counted,
      seqBefore: r.seq_before,
      seqAfter: r.seq_after,
    }));
  }

  /**
   * Claims a tenant's idempotency key for a request: `claimed` when it is new (the caller performs the request, then
   * `completeKey` or `releaseKey`), else what was stored: the other body's hash, or the first response. Keys are the
   * tenant's own: another tenant's use of the same key is another key.
   */
  async claimKey(
    tenantId: string,
    scope: string,
    key: string,
    bodyHash: string,
  ): Promise<
    | { kind: 'claimed' }
    | { kind: 'other-body' }
    | { kind: 'pending' }
    | { kind: 'replay'; status: number; response: unknown }
  > {
    const inserted = await this.dataSource.query<unknown[]>(
      `INSERT INTO idempotency_keys (tenant_id, scope, key, body_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, scope, key) DO NOTHING RETURNING key`,
      [tenantId, scope, key, bodyHash],
    );
    if (inserted.length > 0) {
      return { kind: 'claimed' };
    }
    const [row] = await this.dataSource.query<{ body_hash: string; status: number | null; response: unknown }[]>(
      'SELECT body_hash, status, response FROM idempotency_keys WHERE tenant_id = $1 AND scope = $2 AND key = $3',
      [tenantId, scope, key],
    );
    if (!row) {
      // Released between the two statements: the caller may try again.
      return this.claimKey(tenantId, scope, key, bodyHash);
    }
    if (row.body_hash !== bodyHash) {
      return { kind: 'other-body' };
    }
    return row.status === null ? { kind: 'pending' } : { kind: 'replay', status: row.status, response: row.response };
  }

  async completeKey(tenantId: string, scope: string, key: string, status: number, response: unknown): Promise<void> {
    await this.dataSource.query(
      'UPDATE idempotency_keys SET status = $4, response = $5 WHERE tenant_id = $1 AND scope = $2 AND key = $3',
      [tenantId, scope, key, status, JSON.stringify(response)],
    );
  }

  async releaseKey(tenantId: string, scope: string, key: string): Promise<void> {
    await this.dataSource.query(
      'DELETE FROM idempotency_keys WHERE tenant_id = $1 AND scope = $2 AND key = $3 AND status IS NULL',
      [tenantId, scope, key],
    );
  }
}
