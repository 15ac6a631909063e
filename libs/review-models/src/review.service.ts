import { DataSource } from 'typeorm';

import type { ActorKind } from '@libs/evidence-trail';
import type { Grade } from '@libs/graders';
import {
  EpisodeCallRepository,
  recordExport,
  ReviewConflictError,
  ReviewRepository,
  RolloutRepository,
  StackRepository,
} from '@libs/persistence';
import type { PackRegistry } from '@libs/twin-engine';

import { episodeView } from './episode.view';
import { PolicyRuleText, policyRules } from './policy-rules';
import { ReviewError } from './review-input.error';
import { parseAnnotationRequest, parseSignOffRequest } from './review-requests';
import type { Annotation, EpisodeView, RolloutListView, RolloutView, SignOff } from './review-view-models';
import { parseRolloutFilters } from './rollout-filters';
import { rolloutListView } from './rollout-list.view';
import { rolloutView } from './rollout.view';
import { SeededWorlds, stackWorlds } from './seeded-worlds';
import { seededTables } from './state-diff';

/** How many of the newest rollouts the list filters (the filters read facts aggregated per rollout). */
export const rolloutsScanned = 500;

/** How many of an episode's calls that changed nothing (reads) its page lists; the count says how many there are. */
export const quietCallsShown = 2_000;

/**
 * Who is asking: the tenant whose data they may read, the name their annotations are recorded under, and the role
 * they act in (a reviewer's key, an admin's, `mirror up`'s local user), recorded as it is, never assumed.
 */
export interface Reviewer {
  tenantId: string;
  actor: string;
  role: ActorKind;
}

/** The review's reads and writes, for the api and the report command alike; every one scoped by the tenant. */
export class ReviewService {
  private readonly review: ReviewRepository;
  private readonly rollouts: RolloutRepository;
  private readonly stacks: StackRepository;
  private readonly quietCalls: EpisodeCallRepository;
  private readonly worlds: SeededWorlds;

  /**
   * `packs`: the twin packs of the process, to rebuild an episode's seeded world (its people's and channels' names,
   * its records' values before the episode); without a stack's pack, ids are shown and seeded values are unknown.
   */
  constructor(
    private readonly dataSource: DataSource,
    packs: PackRegistry = new Map(),
  ) {
    this.quietCalls = new EpisodeCallRepository(dataSource);
    this.review = new ReviewRepository(dataSource);
    this.rollouts = new RolloutRepository(dataSource);
    this.stacks = new StackRepository(dataSource);
    this.worlds = stackWorlds(this.stacks, packs);
  }

  async rolloutList(tenantId: string, query: Record<string, unknown>): Promise<RolloutListView> {
    const filters = parseRolloutFilters(query);
    return rolloutListView(await this.review.rolloutSummaries(tenantId, rolloutsScanned), filters);
  }

  async rollout(tenantId: string, rolloutId: string): Promise<RolloutView> {
    const rollout = await this.rollouts.find(tenantId, rolloutId);
    if (!rollout) {
      throw new ReviewError('NOT_FOUND', `no rollout ${rolloutId}`);
    }
    const [episodes, grades, signOffs, rules, closure] = await Promise.all([
      this.rollouts.episodes(tenantId, rolloutId),
      this.review.rolloutGrades<Grade>(tenantId, rolloutId),
      this.review.signOffs(tenantId, rolloutId),
      this.rulesOf(tenantId, rollout.stackVersion),
      this.review.closure(tenantId, rolloutId),
    ]);
    return rolloutView({ rollout, episodes, grades, signOffs, rules, closure: closure ?? null });
  }

  async episode(tenantId: string, episodeId: string): Promise<EpisodeView> {
    const episode = await this.review.episode(tenantId, episodeId);
    if (!episode) {
      throw new ReviewError('NOT_FOUND', `no episode ${episodeId}`);
    }
    const log = await this.review.events(tenantId, episodeId);
    const [grades, trajectory, quiet, count, annotations, rules, world] = await Promise.all([
      this.review.grades<Grade>(tenantId, episodeId),
      this.review.trajectory(tenantId, episodeId),
      this.quietCalls.calls(tenantId, episodeId, quietCallsShown),
      this.quietCalls.count(tenantId, episodeId),
      this.review.annotations(tenantId, episodeId),
      this.rulesOf(tenantId, episode.stackVersion),
      this.worlds(tenantId, episode, seededTables(log)),
    ]);
    return episodeView({
      episode,
      log,
      grades,
      trajectory,
      quiet: { calls: quiet, count },
      annotations,
      rules,
      world,
    });
  }

  /** Agrees with or disputes a verdict of the episode's latest grade; refused before anything is written. */
  async annotate(reviewer: Reviewer, episodeId: string, body: unknown): Promise<Annotation> {
    const request = parseAnnotationRequest(body);
    if (!(await this.review.episode(reviewer.tenantId, episodeId))) {
      throw new ReviewError('NOT_FOUND', `no episode ${episodeId}`);
    }
    const grades = await this.review.grades<Grade>(reviewer.tenantId, episodeId);
    const latest = grades[grades.length - 1];
    if (!latest) {
      throw new ReviewError('CONFLICT', `episode ${episodeId} has no grade to annotate yet`);
    }
    if (!latest.grade.verdicts.some((v) => v.rule === request.rule)) {
      throw new ReviewError(
        'INVALID_INPUT',
        `rule: the episode's grade has no verdict on ${JSON.stringify(request.rule)}`,
        'rule',
      );
    }
    const row = await this.review.annotate(reviewer.tenantId, {
      episodeId,
      policies: latest.policies,
      graderVersion: latest.graderVersion,
      rule: request.rule,
      stance: request.stance,
      comment: request.comment,
      reviewer: reviewer.actor,
      role: reviewer.role,
    });
    return {
      id: row.id,
      rule: row.rule,
      stance: row.stance,
      comment: row.comment,
      reviewer: row.reviewer,
      role: row.role,
      auditSeq: row.auditSeq,
      createdAt: row.createdAt,
      onOtherGrade: false,
    };
  }

  async signOff(reviewer: Reviewer, rolloutId: string, body: unknown): Promise<SignOff> {
    const request = parseSignOffRequest(body);
    if (!(await this.rollouts.find(reviewer.tenantId, rolloutId))) {
      throw new ReviewError('NOT_FOUND', `no rollout ${rolloutId}`);
    }
    try {
      const { rolloutId: _id, ...row } = await this.review.signOff(
        reviewer.tenantId,
        {
          rolloutId,
          reviewer: reviewer.actor,
          role: reviewer.role,
          decision: request.decision,
          comment: request.comment,
        },
        request.expected,
      );
      return row;
    } catch (error) {
      if (error instanceof ReviewConflictError) {
        throw new ReviewError('CONFLICT', error.message);
      }
      throw error;
    }
  }

  /**
   * A report handed out (by the api or `mirror report`), in the evidence trail under the caller's name and role: of
   * what, in which format, and the digest of the file.
   */
  async recordReportExport(
    reviewer: Reviewer,
    kind: 'rollout' | 'episode',
    id: string,
    format: 'html' | 'pdf',
    content: string | Buffer,
  ): Promise<void> {
    await recordExport(
      this.dataSource,
      reviewer.tenantId,
      { actor: reviewer.actor, actorKind: reviewer.role },
      { action: 'report.exported', subject: { kind, id }, format, content },
    );
  }

  private async rulesOf(tenantId: string, stackVersion: string): Promise<Map<string, PolicyRuleText>> {
    return policyRules((await this.stacks.findVersion(tenantId, stackVersion))?.model);
  }
}
