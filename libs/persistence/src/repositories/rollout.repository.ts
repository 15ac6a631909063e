import { DataSource, EntityManager } from 'typeorm';

import { AuditRecord, materialDigest, rolloutCommitment, rolloutMaterial, Versions } from '@libs/evidence-trail';
import type { RolloutEpisodeResult, RolloutPlan, RolloutReport, RolloutStatus } from '@libs/rollouts';

import { AuditTrailRepository } from './audit-trail.repository';
import type { GradeModels } from './episode-grade.repository';
import { readEpisodeVersions } from './episode-versions';

export interface StoredRollout extends RolloutPlan {
  status: RolloutStatus;
  createdAt: string;
  finishedAt: string | null;
  report: RolloutReport | null;
}

interface RolloutRow {
  id: string;
  stack_version: string;
  bundle: string;
  agent: string;
  tasks: string[];
  trials: number;
  concurrency: number;
  status: RolloutStatus;
  report: RolloutReport | null;
  created_at: Date;
  finished_at: Date | null;
}

interface EpisodeRow {
  task: string;
  trial: number;
  episode_id: string | null;
  status: string;
  passed: boolean | null;
  reward: number | null;
  violations: string[];
  reason: string;
}

/** A trial written to a rollout the tenant does not own: refused whole, nothing stored. */
export class RolloutNotInTenantError extends Error {
  constructor(tenantId: string, rolloutId: string) {
    super(`tenant ${tenantId} has no rollout ${rolloutId.slice(0, 64)}`);
  }
}

const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

const toRollout = (row: RolloutRow): StoredRollout => ({
  id: row.id,
  stackVersion: row.stack_version.trim(),
  bundle: row.bundle,
  agent: row.agent,
  tasks: row.tasks,
  trials: row.trials,
  concurrency: row.concurrency,
  status: row.status,
  createdAt: new Date(row.created_at).toISOString(),
  finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  report: row.report,
});

const toEpisode = (row: EpisodeRow): RolloutEpisodeResult => ({
  task: row.task,
  trial: row.trial,
  episodeId: row.episode_id,
  status: row.status,
  passed: row.passed,
  reward: row.reward,
  violations: row.violations,
  reason: row.reason,
});

/**
 * Rollouts and their trials. Every write is idempotent, because the activities that make them are retried after a
 * worker restart: opening an open rollout changes nothing, and a trial's first recorded result is the one kept.
 */
export class RolloutRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Opens a rollout, recording it in the evidence trail in the same transaction (once, however often retried). */
  async open(tenantId: string, plan: RolloutPlan): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const inserted = await manager.query<unknown[]>(
        `INSERT INTO rollouts (id, tenant_id, stack_version, bundle, agent, tasks, trials, concurrency, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'running') ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          plan.id,
          tenantId,
          plan.stackVersion,
          plan.bundle,
          plan.agent,
          JSON.stringify(plan.tasks),
          plan.trials,
          plan.concurrency,
        ],
      );
      if (inserted.length > 0) {
        await this.audit(
          manager,
          tenantId,
          plan.id,
          'rollout.opened',
          { bundle: plan.bundle, agent: plan.agent, tasks: plan.tasks, trials: plan.trials },
          { stack: plan.stackVersion },
          plan.startedBy,
        );
      }
    });
  }

  /**
   * Records a trial of the tenant's rollout unless it is recorded already; returns the result stored, the first one.
   * A rollout of another tenant is refused whole, nothing stored.
   */
  async recordEpisode(
    tenantId: string,
    rolloutId: string,
    result: RolloutEpisodeResult,
  ): Promise<RolloutEpisodeResult> {
    await this.dataSource.transaction(async (manager) => {
      const inserted = await manager.query<unknown[]>(
        `INSERT INTO rollout_episodes (rollout_id, task, trial, episode_id, status, passed, reward, violations, reason)
         SELECT id, $2, $3, $4, $5, $6, $7, $8, $9 FROM rollouts WHERE id = $1 AND tenant_id = $10
         ON CONFLICT (rollout_id, task, trial) DO NOTHING RETURNING rollout_id`,
        [
          rolloutId,
          result.task,
          result.trial,
          result.episodeId || null,
          result.status,
          result.passed,
          result.reward,
          JSON.stringify(result.violations),
          result.reason,
          tenantId,
        ],
      );
      if (inserted.length > 0) {
        await this.audit(
          manager,
          tenantId,
          rolloutId,
          'rollout.trial_recorded',
          {
            task: result.task,
            trial: result.trial,
            ...(result.episodeId ? { episodeId: result.episodeId } : {}),
            status: result.status,
            passed: result.passed,
            reward: result.reward,
          },
          await this.trialVersions(manager, tenantId, rolloutId, result.episodeId),
        );
      }
    });
    const stored = await this.episode(tenantId, rolloutId, result.task, result.trial);
    if (!stored) {
      throw new RolloutNotInTenantError(tenantId, rolloutId);
    }
    return stored;
  }

  async episode(
    tenantId: string,
    rolloutId: string,
    task: string,
    trial: number,
  ): Promise<RolloutEpisodeResult | undefined> {
    if (!isUuid(rolloutId)) {
      return undefined;
    }
    const [row] = await this.dataSource.query<EpisodeRow[]>(
      `SELECT e.task, e.trial, e.episode_id, e.status, e.passed, e.reward, e.violations, e.reason
       FROM rollout_episodes e JOIN rollouts r ON r.id = e.rollout_id
       WHERE e.rollout_id = $1 AND e.task = $2 AND e.trial = $3 AND r.tenant_id = $4`,
      [rolloutId, task, trial, tenantId],
    );
    return row ? toEpisode(row) : undefined;
  }

  /** The rollout's recorded trials, by task in the plan's order, then trial. */
  async episodes(tenantId: string, rolloutId: string): Promise<RolloutEpisodeResult[]> {
    const rollout = await this.find(tenantId, rolloutId);
    if (!rollout) {
      return [];
    }
    const rows = await this.dataSource.query<EpisodeRow[]>(
      `SELECT task, trial, episode_id, status, passed, reward, violations, reason FROM rollout_episodes
       WHERE rollout_id = $1`,
      [rolloutId],
    );
    const order = new Map(rollout.tasks.map((task, i) => [task, i]));
    return rows
      .map(toEpisode)
      .sort((a, b) => (order.get(a.task) ?? Infinity) - (order.get(b.task) ?? Infinity) || a.trial - b.trial);
  }

  /** Closes the tenant's running rollout (once: a closed one stays as it was closed). */
  async close(
    tenantId: string,
    rolloutId: string,
    status: Exclude<RolloutStatus, 'running'>,
    report: RolloutReport | null,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const closed = await manager.query<{ stack_version: string }[]>(
        `UPDATE rollouts SET status = $2, report = $3, finished_at = now()
         WHERE id = $1 AND tenant_id = $4 AND status = 'running' RETURNING stack_version`,
        [rolloutId, status, report === null ? null : JSON.stringify(report), tenantId],
      );
      // node-postgres gives an UPDATE's rows as [rows, count].
      const rows = (Array.isArray(closed[0]) ? closed[0] : closed) as { stack_version: string }[];
      if (rows.length > 0) {
        // The close commits to the rollout's whole record so far (its entries and its episodes'), under the head's
        // lock so that nothing lands between what it reads and its own place: a bundle missing one of them fails.
        const trail = new AuditTrailRepository(this.dataSource);
        await trail.appendBuilt(
          tenantId,
          async (locked) => ({
            ...this.record(rolloutId, 'rollout.closed', {
              status,
              ...(report ? { report: materialDigest(report) } : {}),
              ...rolloutCommitment(
                rolloutMaterial(
                  await trail.subjectEntries(tenantId, 'rollout', rolloutId, locked),
                  rolloutId,
                  Infinity,
                ),
              ),
            }),
            versions: { stack: rows[0].stack_version },
          }),
          manager,
        );
      }
    });
  }

  /**
   * What produced a trial's result: the rollout's stack, and its episode's world, task and latest grade (policy sets,
   * grader, models) when it has them (a trial lost before its episode started has none).
   */
  private async trialVersions(
    manager: EntityManager,
    tenantId: string,
    rolloutId: string,
    episodeId: string | null,
  ): Promise<Versions> {
    const [rollout] = await manager.query<{ stack_version: string }[]>(
      'SELECT stack_version FROM rollouts WHERE id = $1 AND tenant_id = $2',
      [rolloutId, tenantId],
    );
    const episode = episodeId ? await readEpisodeVersions(manager, tenantId, episodeId) : undefined;
    const [grade] = episode
      ? await manager.query<{ policies: string; grader_version: string; models: GradeModels }[]>(
          `SELECT policies, grader_version, models FROM episode_grades WHERE episode_id = $1
           ORDER BY graded_at DESC LIMIT 1`,
          [episodeId],
        )
      : [];
    return {
      stack: rollout.stack_version.trim(),
      ...episode,
      ...(grade ? { policies: grade.policies, grader: grade.grader_version, ...grade.models } : {}),
    };
  }

  /** A rollout's step in the evidence trail, in the transaction of the rows it records. */
  private audit(
    manager: EntityManager,
    tenantId: string,
    rolloutId: string,
    action: string,
    details: Record<string, unknown>,
    versions: Versions = {},
    by?: RolloutPlan['startedBy'],
  ): Promise<unknown> {
    return new AuditTrailRepository(this.dataSource).append(
      tenantId,
      { ...this.record(rolloutId, action, details), ...by, versions },
      manager,
    );
  }

  private record(rolloutId: string, action: string, details: Record<string, unknown>): Omit<AuditRecord, 'versions'> {
    return {
      actor: 'mirror:rollouts',
      actorKind: 'system',
      action,
      subject: { kind: 'rollout', id: rolloutId },
      details: { rolloutId, ...details },
    };
  }

  async find(tenantId: string, rolloutId: string): Promise<StoredRollout | undefined> {
    if (!isUuid(rolloutId)) {
      return undefined;
    }
    const [row] = await this.dataSource.query<RolloutRow[]>('SELECT * FROM rollouts WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      rolloutId,
    ]);
    return row ? toRollout(row) : undefined;
  }

  /** Newest first; without their reports (a list stays small whatever the rollouts' sizes). */
  async list(
    tenantId: string,
    page: { offset: number; limit: number },
  ): Promise<{ rollouts: Omit<StoredRollout, 'report'>[]; total: number }> {
    const rows = await this.dataSource.query<RolloutRow[]>(
      `SELECT id, stack_version, bundle, agent, tasks, trials, concurrency, status, created_at, finished_at
       FROM rollouts WHERE tenant_id = $1 ORDER BY created_at DESC, id OFFSET $2 LIMIT $3`,
      [tenantId, page.offset, page.limit],
    );
    const [{ count }] = await this.dataSource.query<{ count: string }[]>(
      'SELECT count(*) AS count FROM rollouts WHERE tenant_id = $1',
      [tenantId],
    );
    return {
      rollouts: rows.map((row) => {
        const { report: _report, ...rest } = toRollout({ ...row, report: null });
        return rest;
      }),
      total: Number(count),
    };
  }
}
