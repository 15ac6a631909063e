import { DataSource } from 'typeorm';

import {
  AuditEntry,
  eventLogDigest,
  EvidenceBundle,
  isJsonObject,
  materialDigest,
  sealEvidenceBundle,
  Versions,
} from '@libs/evidence-trail';
import type { Grade } from '@libs/graders';
import { AuditTrailRepository, EpisodeGradeRepository, PostgresEpisodeStore } from '@libs/persistence';

/** JSON as the database gives it back (dates as text, no undefined): what digests are taken of and bundles carry. */
const asJson = <T>(value: T): unknown => JSON.parse(JSON.stringify(value)) as unknown;

/** An episode's event log as its grading's digest is taken of it (and a bundle carries it). */
export const storedEventLog = async (dataSource: DataSource, tenantId: string, episodeId: string): Promise<unknown[]> =>
  asJson(await new PostgresEpisodeStore(dataSource).events(tenantId, episodeId)) as unknown[];

export interface GradedEpisode {
  tenant: string;
  episodeId: string;
  grade: Grade;
  agent: string;
  versions: Versions;
  /** `episode.graded` the first time, `episode.regraded` for a later grade with other policies or grader. */
  action?: 'episode.graded' | 'episode.regraded';
  actor?: string;
  rolloutId?: string;
}

/**
 * Appends the grading of an episode to the evidence trail: the digest of its whole event log (every agent and persona
 * action, every twin change, in order), the digest of its grades, the verdicts in brief, and the versions that
 * produced them. The material itself stays in its tables; the chain commits to it.
 */
export const recordEpisodeGrade = async (dataSource: DataSource, graded: GradedEpisode): Promise<AuditEntry> => {
  const events = await storedEventLog(dataSource, graded.tenant, graded.episodeId);
  const grades = await new EpisodeGradeRepository(dataSource).grades(graded.tenant, graded.episodeId);
  return new AuditTrailRepository(dataSource).append(graded.tenant, {
    actor: graded.actor ?? 'mirror:grader',
    actorKind: 'grader',
    action: graded.action ?? 'episode.graded',
    subject: { kind: 'episode', id: graded.episodeId },
    details: {
      agent: graded.agent,
      ...(graded.rolloutId ? { rolloutId: graded.rolloutId } : {}),
      eventLog: eventLogDigest(events),
      grades: materialDigest(asJson(grades)),
      reward: graded.grade.reward,
      passed: graded.grade.passed,
      violated: graded.grade.verdicts
        .filter((v) => v.status === 'fail')
        .map((v) => ({ rule: v.rule, severity: v.severity })),
    },
    versions: {
      ...graded.versions,
      policies: graded.grade.policies.join(','),
      grader: graded.grade.graderVersion,
    },
  });
};

/** The subject kinds a bundle can be made of. */
export type EvidenceSubject = 'episode' | 'rollout';

/** Exports a signed evidence bundle of an episode or a rollout: its entries, its episodes' material, the chain head. */
export const exportEvidence = async (
  dataSource: DataSource,
  tenant: string,
  subject: { kind: EvidenceSubject; id: string },
): Promise<EvidenceBundle | undefined> => {
  const audit = new AuditTrailRepository(dataSource);
  const own = await audit.forSubject(tenant, subject.kind, subject.id);
  if (own.length === 0) {
    return undefined;
  }
  // A rollout's trials name their episodes; the episodes' own entries commit to their material, so they come along.
  const named = own.map((e) => e.details.episodeId).filter((id): id is string => typeof id === 'string');
  const bySeq = new Map(own.map((e) => [e.seq, e]));
  for (const id of new Set(named)) {
    for (const entry of await audit.forSubject(tenant, 'episode', id)) {
      bySeq.set(entry.seq, entry);
    }
  }
  const entries = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  const grades = new EpisodeGradeRepository(dataSource);
  const episodeIds = [
    ...new Set(
      entries.filter((e) => e.subject.kind === 'episode' && isJsonObject(e.details.eventLog)).map((e) => e.subject.id),
    ),
  ];
  const episodes = [];
  for (const id of episodeIds) {
    episodes.push({
      id,
      events: await storedEventLog(dataSource, tenant, id),
      grades: asJson(await grades.grades(tenant, id)) as unknown[],
    });
  }
  const head = (await audit.head(tenant)) ?? { seq: 0, hash: '' };
  return sealEvidenceBundle(
    { tenant, subject, exportedAt: new Date().toISOString(), entries, episodes, head },
    await audit.signingKey(),
  );
};
