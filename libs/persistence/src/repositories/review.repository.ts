import { randomUUID } from 'node:crypto';

import { DataSource, EntityManager } from 'typeorm';

import type { ActorKind } from '@libs/evidence-trail';
import { Redaction, Redactor } from '@libs/redaction';
import type { EpisodeDescriptor, LoggedEvent } from '@libs/twin-engine';

import { AuditTrailRepository } from './audit-trail.repository';
import type { GradeModels, StoredGrade } from './episode-grade.repository';
import { readEpisodeVersions } from './episode-versions';
import { LiveEpisodeRepository, LiveEpisodeRow, TrajectoryStepRow } from './live-episode.repository';

/**
 * A reviewer's comment is stored as its evidence-trail entry holds it: secrets and personal data it quotes (a card, a
 * token, someone's address or phone) are markers in the row as in the entry, recorded by kind and place.
 */
const commentRedactor = new Redactor();

const redactedComment = (comment: string): { comment: string; redactions?: Redaction[] } => {
  const { value, redactions } = commentRedactor.text(comment, '/comment');
  return redactions.length > 0 ? { comment: value, redactions } : { comment: value };
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A rollout as the list shows it, with what its filters read: the scenarios, tallies and violated rules. */
export interface RolloutSummaryRow {
  id: string;
  bundle: string;
  agent: string;
  tasks: string[];
  trials: number;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  episodes: number;
  graded: number;
  passed: number;
  /** Each rule violated in some trial, with the severity its latest grade gave it (null when ungraded). */
  violations: { rule: string; severity: string | null; episodes: number }[];
  signOffs: number;
}

/** An episode as the review reads it: where it came from and what ran in it. */
export interface ReviewedEpisodeRow {
  id: string;
  stackVersion: string;
  seed: number;
  /** What the episode's world was built with, beside its stack version and seed. */
  sizes: EpisodeDescriptor['sizes'];
  createdAt: string;
  scenario: { id: string; seed: number } | null;
  forkedFrom: { episodeId: string; seq: number } | null;
  run: { scenarioId: string; agent: string; outcome: unknown } | null;
  rollout: { id: string; task: string; trial: number } | null;
  live: Pick<LiveEpisodeRow, 'environment' | 'task' | 'status' | 'steps' | 'result'> | null;
}

export interface AnnotationRow {
  id: string;
  episodeId: string;
  policies: string;
  graderVersion: string;
  rule: string;
  stance: 'agree' | 'dispute';
  comment: string;
  reviewer: string;
  /** The role the reviewer acted in (`reviewer`, `admin`), as their evidence-trail entry records it. */
  role: ActorKind;
  auditSeq: number;
  createdAt: string;
}

export interface SignOffRow {
  rolloutId: string;
  reviewer: string;
  decision: 'approved' | 'rejected';
  comment: string;
  /** The role the reviewer acted in (`reviewer`, `admin`), as their evidence-trail entry records it. */
  role: ActorKind;
  auditSeq: number;
  signedAt: string;
  /**
   * What was signed: the rollout's `rollout.closed` entry and the Merkle root it committed to, as the sign-off's own
   * evidence-trail entry records them (null for sign-offs made before sign-offs were bound to a close).
   */
  closure: BoundClosure | null;
}

/** A rollout's close as a sign-off binds to it: the entry's place and hash, and the record's Merkle root. */
export interface BoundClosure {
  seq: number;
  entryHash: string;
  merkleRoot: string;
}

/** What the reviewer saw and signs: the sign-off is refused when the rollout's close is another by now. */
export interface ExpectedClosure {
  entryHash?: string;
  merkleRoot?: string;
}

/** Why a review write was refused: the caller's to fix (a 409), never a half-written row. */
export class ReviewConflictError extends Error {}

const iso = (value: Date | string) => new Date(value).toISOString();

/**
 * What reviewers read and add, every query scoped by the tenant first: rollouts with their filters' facts, an
 * episode's descriptor, log, grades and trajectory, and annotations and sign-offs, each written in one transaction
 * with its evidence-trail entry.
 */
export class ReviewRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Newest first, at most `limit`. */
  async rolloutSummaries(tenantId: string, limit: number): Promise<RolloutSummaryRow[]> {
    const rows = await this.dataSource.query<
      {
        id: string;
        bundle: string;
        agent: string;
        tasks: string[];
        trials: number;
        status: string;
        created_at: Date;
        finished_at: Date | null;
        episodes: string;
        graded: string;
        passed: string;
        violations: { rule: string; severity: string | null; episodes: number }[] | null;
        sign_offs: string;
      }[]
    >(
      `SELECT r.id, r.bundle, r.agent, r.tasks, r.trials, r.status, r.created_at, r.finished_at,
         (SELECT count(*) FROM rollout_episodes e WHERE e.rollout_id = r.id) AS episodes,
         (SELECT count(*) FROM rollout_episodes e WHERE e.rollout_id = r.id AND e.passed IS NOT NULL) AS graded,
         (SELECT count(*) FROM rollout_episodes e WHERE e.rollout_id = r.id AND e.passed) AS passed,
         (SELECT jsonb_agg(jsonb_build_object('rule', v.rule, 'severity', v.severity, 'episodes', v.n))
            FROM (SELECT rule, (array_agg(s.severity ORDER BY CASE s.severity WHEN 'critical' THEN 0 WHEN 'major' THEN 1
                    WHEN 'minor' THEN 2 ELSE 3 END))[1] AS severity, count(*)::int AS n
                  FROM rollout_episodes e
                  CROSS JOIN LATERAL jsonb_array_elements_text(e.violations) AS rule
                  LEFT JOIN LATERAL (
                    SELECT verdict->>'severity' AS severity FROM episode_grades g
                    CROSS JOIN LATERAL jsonb_array_elements(g.grade->'verdicts') AS verdict
                    WHERE g.episode_id = e.episode_id AND verdict->>'rule' = rule
                    ORDER BY g.graded_at DESC LIMIT 1
                  ) s ON true
                  WHERE e.rollout_id = r.id GROUP BY rule) v) AS violations,
         (SELECT count(*) FROM rollout_signoffs s WHERE s.tenant_id = r.tenant_id AND s.rollout_id = r.id) AS sign_offs
       FROM rollouts r WHERE r.tenant_id = $1 ORDER BY r.created_at DESC, r.id LIMIT $2`,
      [tenantId, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      bundle: row.bundle,
      agent: row.agent,
      tasks: row.tasks,
      trials: row.trials,
      status: row.status,
      createdAt: iso(row.created_at),
      finishedAt: row.finished_at ? iso(row.finished_at) : null,
      episodes: Number(row.episodes),
      graded: Number(row.graded),
      passed: Number(row.passed),
      violations: (row.violations ?? []).sort((a, b) => a.rule.localeCompare(b.rule)),
      signOffs: Number(row.sign_offs),
    }));
  }

  /** The latest grade of each of a rollout's episodes, by episode id. */
  async rolloutGrades<Grade>(tenantId: string, rolloutId: string): Promise<Map<string, StoredGrade<Grade>>> {
    if (!uuid.test(rolloutId)) {
      return new Map();
    }
    const rows = await this.dataSource.query<
      {
        episode_id: string;
        policies: string;
        grader_version: string;
        graded_at: Date;
        grade: Grade;
        models: GradeModels;
      }[]
    >(
      `SELECT DISTINCT ON (g.episode_id) g.episode_id, g.policies, g.grader_version, g.graded_at, g.grade, g.models
       FROM rollout_episodes e
       JOIN rollouts r ON r.id = e.rollout_id AND r.tenant_id = $1
       JOIN episode_grades g ON g.episode_id = e.episode_id
       WHERE e.rollout_id = $2 ORDER BY g.episode_id, g.graded_at DESC`,
      [tenantId, rolloutId],
    );
    return new Map(
      rows.map((r) => [
        r.episode_id,
        {
          policies: r.policies,
          graderVersion: r.grader_version,
          models: r.models,
          gradedAt: iso(r.graded_at),
          grade: r.grade,
        },
      ]),
    );
  }

  async episode(tenantId: string, episodeId: string): Promise<ReviewedEpisodeRow | undefined> {
    if (!uuid.test(episodeId)) {
      return undefined;
    }
    const [row] = await this.dataSource.query<
      {
        id: string;
        stack_version: string;
        seed: string;
        sizes: EpisodeDescriptor['sizes'];
        created_at: Date;
        scenario_id: string | null;
        scenario_seed: string | null;
        forked_from: string | null;
        forked_at_seq: number | null;
        run_scenario: string | null;
        run_agent: string | null;
        run_outcome: unknown;
        rollout_id: string | null;
        rollout_task: string | null;
        rollout_trial: number | null;
        live_environment: string | null;
        live_task: string | null;
        live_status: LiveEpisodeRow['status'] | null;
        live_steps: number | null;
        live_result: unknown;
      }[]
    >(
      `SELECT ep.id, ep.stack_version, ep.seed, ep.sizes, ep.created_at, ep.scenario_id, ep.scenario_seed, ep.forked_from,
         ep.forked_at_seq, run.scenario_id AS run_scenario, run.agent AS run_agent, run.outcome AS run_outcome,
         re.rollout_id, re.task AS rollout_task, re.trial AS rollout_trial,
         le.environment AS live_environment, le.task AS live_task, le.status AS live_status, le.steps AS live_steps,
         le.result AS live_result
       FROM episodes ep
       LEFT JOIN episode_runs run ON run.episode_id = ep.id
       LEFT JOIN LATERAL (SELECT e.rollout_id, e.task, e.trial FROM rollout_episodes e
                          JOIN rollouts r ON r.id = e.rollout_id AND r.tenant_id = ep.tenant_id
                          WHERE e.episode_id = ep.id LIMIT 1) re ON true
       LEFT JOIN live_episodes le ON le.id = ep.id
       WHERE ep.tenant_id = $1 AND ep.id = $2`,
      [tenantId, episodeId],
    );
    if (!row) {
      return undefined;
    }
    return {
      id: row.id,
      stackVersion: row.stack_version.trim(),
      seed: Number(row.seed),
      sizes: row.sizes,
      createdAt: iso(row.created_at),
      scenario: row.scenario_id ? { id: row.scenario_id, seed: Number(row.scenario_seed) } : null,
      forkedFrom: row.forked_from ? { episodeId: row.forked_from, seq: row.forked_at_seq ?? 0 } : null,
      run: row.run_scenario
        ? { scenarioId: row.run_scenario, agent: row.run_agent ?? '', outcome: row.run_outcome }
        : null,
      rollout: row.rollout_id ? { id: row.rollout_id, task: row.rollout_task!, trial: row.rollout_trial! } : null,
      live: row.live_environment
        ? {
            environment: row.live_environment,
            task: row.live_task!,
            status: row.live_status!,
            steps: row.live_steps ?? 0,
            result: row.live_result,
          }
        : null,
    };
  }

  async events(tenantId: string, episodeId: string): Promise<LoggedEvent[]> {
    const rows = await this.dataSource.query<
      { seq: number; at: Date; operation_id: string; actor: string | null; event: LoggedEvent['event'] }[]
    >(
      `SELECT ev.seq, ev.at, ev.operation_id, ev.actor, ev.event FROM episode_events ev
       JOIN episodes ep ON ep.id = ev.episode_id AND ep.tenant_id = $1
       WHERE ev.episode_id = $2 ORDER BY ev.seq`,
      [tenantId, episodeId],
    );
    return rows.map((row) => ({
      seq: row.seq,
      at: iso(row.at),
      operationId: row.operation_id,
      ...(row.actor !== null ? { actor: row.actor } : {}),
      event: row.event,
    }));
  }

  /** Every grade of the episode, oldest first. */
  async grades<Grade>(tenantId: string, episodeId: string): Promise<StoredGrade<Grade>[]> {
    const rows = await this.dataSource.query<
      { policies: string; grader_version: string; graded_at: Date; grade: Grade; models: GradeModels }[]
    >(
      `SELECT g.policies, g.grader_version, g.graded_at, g.grade, g.models FROM episode_grades g
       JOIN episodes ep ON ep.id = g.episode_id AND ep.tenant_id = $1
       WHERE g.episode_id = $2 ORDER BY g.graded_at, g.policies`,
      [tenantId, episodeId],
    );
    return rows.map((r) => ({
      policies: r.policies,
      graderVersion: r.grader_version,
      models: r.models,
      gradedAt: iso(r.graded_at),
      grade: r.grade,
    }));
  }

  /** The calls an outside agent made through the episode API, in order (none for built-in agents). */
  trajectory(tenantId: string, episodeId: string): Promise<TrajectoryStepRow[]> {
    return new LiveEpisodeRepository(this.dataSource).steps(tenantId, episodeId);
  }

  async annotations(tenantId: string, episodeId: string): Promise<AnnotationRow[]> {
    const rows = await this.dataSource.query<
      {
        id: string;
        episode_id: string;
        policies: string;
        grader_version: string;
        rule: string;
        stance: AnnotationRow['stance'];
        comment: string;
        reviewer: string;
        actor_kind: ActorKind;
        audit_seq: string;
        created_at: Date;
      }[]
    >(
      // The role is the evidence trail's: the entry written with the annotation, in the same transaction.
      `SELECT a.*, au.actor_kind FROM review_annotations a
       JOIN audit_entries au ON au.tenant_id = a.tenant_id AND au.seq = a.audit_seq
       WHERE a.tenant_id = $1 AND a.episode_id = $2 ORDER BY a.created_at, a.id`,
      [tenantId, episodeId],
    );
    return rows.map((r) => ({
      id: r.id,
      episodeId: r.episode_id,
      policies: r.policies,
      graderVersion: r.grader_version,
      rule: r.rule,
      stance: r.stance,
      comment: r.comment,
      reviewer: r.reviewer,
      role: r.actor_kind,
      auditSeq: Number(r.audit_seq),
      createdAt: iso(r.created_at),
    }));
  }

  /**
   * Records an agreement with or a dispute of a verdict and its evidence-trail entry, together or not at all. The
   * caller has checked that the episode is the tenant's and that its grade judged the rule.
   */
  async annotate(
    tenantId: string,
    annotation: Omit<AnnotationRow, 'id' | 'auditSeq' | 'createdAt'>,
  ): Promise<AnnotationRow> {
    const { comment, redactions } = redactedComment(annotation.comment);
    return this.dataSource.transaction(async (manager) => {
      const id = randomUUID();
      // The versions of what is judged: the episode's world and task, and the models of the grade annotated.
      const [graded] = await manager.query<{ models: GradeModels }[]>(
        `SELECT g.models FROM episode_grades g JOIN episodes ep ON ep.id = g.episode_id AND ep.tenant_id = $1
         WHERE g.episode_id = $2 AND g.policies = $3 AND g.grader_version = $4`,
        [tenantId, annotation.episodeId, annotation.policies, annotation.graderVersion],
      );
      const entry = await new AuditTrailRepository(this.dataSource).append(
        tenantId,
        {
          actor: annotation.reviewer,
          actorKind: annotation.role,
          action: annotation.stance === 'agree' ? 'verdict.agreed' : 'verdict.disputed',
          subject: { kind: 'episode', id: annotation.episodeId },
          details: {
            annotation: id,
            rule: annotation.rule,
            policies: annotation.policies,
            graderVersion: annotation.graderVersion,
            comment,
            ...(redactions ? { redactions } : {}),
          },
          versions: {
            ...(await readEpisodeVersions(manager, tenantId, annotation.episodeId)),
            policies: annotation.policies,
            grader: annotation.graderVersion,
            ...graded?.models,
          },
        },
        manager,
      );
      const [row] = await manager.query<{ created_at: Date }[]>(
        `INSERT INTO review_annotations
           (id, tenant_id, episode_id, policies, grader_version, rule, stance, comment, reviewer, audit_seq)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING created_at`,
        [
          id,
          tenantId,
          annotation.episodeId,
          annotation.policies,
          annotation.graderVersion,
          annotation.rule,
          annotation.stance,
          comment,
          annotation.reviewer,
          entry.seq,
        ],
      );
      return { ...annotation, comment, id, auditSeq: entry.seq, createdAt: iso(row.created_at) };
    });
  }

  async signOffs(tenantId: string, rolloutId: string): Promise<SignOffRow[]> {
    if (!uuid.test(rolloutId)) {
      return [];
    }
    const rows = await this.dataSource.query<
      {
        rollout_id: string;
        reviewer: string;
        decision: SignOffRow['decision'];
        comment: string;
        actor_kind: ActorKind;
        audit_seq: string;
        signed_at: Date;
        closure: unknown;
      }[]
    >(
      `SELECT s.*, au.actor_kind, au.details->'closure' AS closure FROM rollout_signoffs s
       JOIN audit_entries au ON au.tenant_id = s.tenant_id AND au.seq = s.audit_seq
       WHERE s.tenant_id = $1 AND s.rollout_id = $2 ORDER BY s.signed_at, s.reviewer`,
      [tenantId, rolloutId],
    );
    return rows.map((r) => ({
      rolloutId: r.rollout_id,
      reviewer: r.reviewer,
      decision: r.decision,
      comment: r.comment,
      role: r.actor_kind,
      auditSeq: Number(r.audit_seq),
      signedAt: iso(r.signed_at),
      closure: asClosure(r.closure),
    }));
  }

  /** The rollout's `rollout.closed` entry (its latest, should there be more), or undefined while it has none. */
  async closure(
    tenantId: string,
    rolloutId: string,
    runner: Pick<EntityManager, 'query'> = this.dataSource,
  ): Promise<BoundClosure | undefined> {
    if (!uuid.test(rolloutId)) {
      return undefined;
    }
    const [row] = await runner.query<{ seq: string; hash: string; merkle_root: unknown }[]>(
      `SELECT seq, hash, details->>'merkleRoot' AS merkle_root FROM audit_entries
       WHERE tenant_id = $1 AND action = 'rollout.closed' AND subject_kind = 'rollout' AND subject_id = $2
       ORDER BY seq DESC LIMIT 1`,
      [tenantId, rolloutId],
    );
    return row && typeof row.merkle_root === 'string'
      ? { seq: Number(row.seq), entryHash: row.hash, merkleRoot: row.merkle_root }
      : undefined;
  }

  /**
   * Signs a finished rollout off, once per reviewer, with its evidence-trail entry in the same transaction. The
   * rollout row is locked so a sign-off never lands beside a rollout still changing.
   */
  async signOff(
    tenantId: string,
    signOff: Omit<SignOffRow, 'auditSeq' | 'signedAt' | 'closure'>,
    expected: ExpectedClosure = {},
  ): Promise<SignOffRow> {
    const { comment, redactions } = redactedComment(signOff.comment);
    return this.dataSource.transaction(async (manager) => {
      const [rollout] = await manager.query<{ status: string; stack_version: string }[]>(
        `SELECT status, stack_version FROM rollouts WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
        [tenantId, signOff.rolloutId],
      );
      if (!rollout) {
        throw new ReviewConflictError(`no rollout ${signOff.rolloutId}`);
      }
      if (rollout.status === 'running') {
        throw new ReviewConflictError(`rollout ${signOff.rolloutId} is still running: sign it off once it has ended`);
      }
      const [already] = await manager.query<unknown[]>(
        `SELECT 1 FROM rollout_signoffs WHERE rollout_id = $1 AND reviewer = $2`,
        [signOff.rolloutId, signOff.reviewer],
      );
      if (already) {
        throw new ReviewConflictError(`${signOff.reviewer} has already signed rollout ${signOff.rolloutId} off`);
      }
      // Read under the rollout's lock: the close a sign-off binds to is the one its entry names.
      const closure = await this.closure(tenantId, signOff.rolloutId, manager);
      if (!closure) {
        throw new ReviewConflictError(
          `rollout ${signOff.rolloutId} has no rollout.closed entry in the evidence trail yet: there is no closed record to sign off`,
        );
      }
      refuseOtherClosure(signOff.rolloutId, closure, expected);
      const entry = await new AuditTrailRepository(this.dataSource).append(
        tenantId,
        {
          actor: signOff.reviewer,
          actorKind: signOff.role,
          action: 'rollout.signed_off',
          subject: { kind: 'rollout', id: signOff.rolloutId },
          details: {
            rolloutId: signOff.rolloutId,
            decision: signOff.decision,
            closure,
            comment,
            ...(redactions ? { redactions } : {}),
          },
          versions: { stack: rollout.stack_version.trim() },
        },
        manager,
      );
      const [row] = await manager.query<{ signed_at: Date }[]>(
        `INSERT INTO rollout_signoffs (tenant_id, rollout_id, reviewer, decision, comment, audit_seq)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING signed_at`,
        [tenantId, signOff.rolloutId, signOff.reviewer, signOff.decision, comment, entry.seq],
      );
      return { ...signOff, comment, auditSeq: entry.seq, signedAt: iso(row.signed_at), closure };
    });
  }
}

const asClosure = (value: unknown): BoundClosure | null => {
  const v = value as Partial<BoundClosure> | null;
  return v && typeof v.seq === 'number' && typeof v.entryHash === 'string' && typeof v.merkleRoot === 'string'
    ? { seq: v.seq, entryHash: v.entryHash, merkleRoot: v.merkleRoot }
    : null;
};

/** A reviewer signs what they saw: a close other than the one the page showed is a conflict, named. */
const refuseOtherClosure = (rolloutId: string, closure: BoundClosure, expected: ExpectedClosure): void => {
  if (expected.entryHash !== undefined && expected.entryHash !== closure.entryHash) {
    throw new ReviewConflictError(
      `rollout ${rolloutId}'s rollout.closed entry is ${closure.entryHash} (entry ${closure.seq}), not the ${expected.entryHash} you reviewed: reload the rollout and review it again`,
    );
  }
  if (expected.merkleRoot !== undefined && expected.merkleRoot !== closure.merkleRoot) {
    throw new ReviewConflictError(
      `rollout ${rolloutId}'s record has Merkle root ${closure.merkleRoot} (entry ${closure.seq}), not the ${expected.merkleRoot} you reviewed: reload the rollout and review it again`,
    );
  }
};
