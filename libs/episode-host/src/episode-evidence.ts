import { DataSource } from 'typeorm';

import {
  AuditEntry,
  chainLinks,
  eventLogDigest,
  EvidenceBundle,
  genesisHash,
  verifyCallChain,
  isJsonObject,
  materialDigest,
  sealEvidenceBundle,
  Versions,
} from '@libs/evidence-trail';
import type { Grade } from '@libs/graders';
import {
  AuditTrailRepository,
  EpisodeCallRepository,
  EpisodeGradeRepository,
  PostgresEpisodeStore,
  readScenarioDigest,
} from '@libs/persistence';
import { stringifyExact } from '@libs/twin-engine';

/**
 * JSON as the database gives it back (dates as text, no undefined): what digests are taken of and bundles carry. An
 * integer beyond 2^53 a client sent is its nearest number here: RFC 8785 writes every number as an IEEE double, so
 * that is what any verifier reading the bundle hashes too.
 */
const asJson = <T>(value: T): unknown => JSON.parse(stringifyExact(value)) as unknown;

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
 * action, every twin change, in order), the head of its chain of calls that changed nothing (every read, by count
 * and last hash: the calls recorded by then; flush the call log first), the digest of its grades, the verdicts in
 * brief, and the versions that produced them. The material itself stays in its tables; the chain commits to it.
 */
export const recordEpisodeGrade = async (dataSource: DataSource, graded: GradedEpisode): Promise<AuditEntry> => {
  const events = await storedEventLog(dataSource, graded.tenant, graded.episodeId);
  const calls = await new EpisodeCallRepository(dataSource).head(graded.tenant, graded.episodeId);
  const grades = await new EpisodeGradeRepository(dataSource).grades(graded.tenant, graded.episodeId);
  const { stack, scenario } = graded.versions;
  // The task judged, by content: the definition its stack version stores under the scenario's id.
  const scenarioDigest =
    typeof stack === 'string' && typeof scenario === 'string'
      ? await readScenarioDigest(dataSource, graded.tenant, stack, scenario)
      : undefined;
  return new AuditTrailRepository(dataSource).append(graded.tenant, {
    actor: graded.actor ?? 'mirror:grader',
    actorKind: 'grader',
    action: graded.action ?? 'episode.graded',
    subject: { kind: 'episode', id: graded.episodeId },
    details: {
      agent: graded.agent,
      ...(graded.rolloutId ? { rolloutId: graded.rolloutId } : {}),
      eventLog: eventLogDigest(events),
      calls,
      grades: materialDigest(asJson(grades)),
      reward: graded.grade.reward,
      passed: graded.grade.passed,
      violated: graded.grade.verdicts
        .filter((v) => v.status === 'fail')
        .map((v) => ({ rule: v.rule, severity: v.severity })),
    },
    versions: {
      ...graded.versions,
      ...(scenarioDigest ? { scenarioDigest } : {}),
      policies: graded.grade.policies.join(','),
      grader: graded.grade.graderVersion,
    },
  });
};

/**
 * Who spoke for an episode's counterparties when it was played, as its first grading recorded it (`templates` or
 * `llm:<model>`): a re-grading plays nothing, and names the voices of the episode it judges. `unrecorded` for an
 * episode no grading of which named them (graded before they were recorded, or never graded as played).
 */
export const playedPersonas = async (dataSource: DataSource, tenant: string, episodeId: string): Promise<string> => {
  const entries = await new AuditTrailRepository(dataSource).forSubject(tenant, 'episode', episodeId);
  const named = entries.filter((entry) => typeof entry.versions.personas === 'string');
  return named.length > 0 ? String(named[0].versions.personas) : 'unrecorded';
};

/** What an episode's latest grading entry recorded of its calls (none: graded before calls were chained). */
const committedCalls = (entries: readonly AuditEntry[]): { count: number; digest: string } | undefined => {
  const graded = entries.filter((e) => isJsonObject(e.details.eventLog));
  const calls = graded[graded.length - 1]?.details.calls;
  return isJsonObject(calls) && typeof calls.count === 'number' && typeof calls.digest === 'string'
    ? { count: calls.count, digest: calls.digest }
    : undefined;
};

/** An episode whose stored material is no longer what its latest committing entry committed to, and how. */
export interface DriftedEpisode {
  episodeId: string;
  /** The committing entry's place in the chain (0: no entry commits to the episode's calls). */
  seq: number;
  message: string;
}

/** Calls of an episode that no entry vouches for yet: answered while it was open and never graded, or after it. */
export interface UnvouchedCalls {
  episodeId: string;
  /** The first and last place (`n`) in the episode's call chain that no entry commits to. */
  from: number;
  to: number;
}

/** Each episode's latest entry that commits to its material (its grading, or its end), by episode id. */
const latestCommitments = async (dataSource: DataSource, tenant: string): Promise<Map<string, AuditEntry>> => {
  const audit = new AuditTrailRepository(dataSource);
  const latest = new Map<string, AuditEntry>();
  for (let after = 0; ;) {
    const page = await audit.page(tenant, after);
    if (page.length === 0) {
      break;
    }
    for (const entry of page) {
      if (entry.subject.kind === 'episode' && isJsonObject(entry.details.eventLog)) {
        latest.set(entry.subject.id, entry);
      }
    }
    after = page[page.length - 1].seq;
  }
  return latest;
};

/** When an entry recorded what it commits to, in words. */
const when = (entry: AuditEntry): string => (entry.action === 'episode.closed' ? 'at its end' : 'at grading');

/**
 * Episodes whose stored material is no longer what their latest committing entry (grading or end) recorded: an event
 * edited, removed or added since, or a call that changed nothing (a read) edited, deleted or moved, named by its place
 * and row. The calls of an episode no entry commits to are checked as a chain (each link against the one before), so
 * a row changed without its hash, dropped or moved shows there too. The chain itself may be whole; this checks what
 * it committed to.
 */
export const driftedEpisodes = async (dataSource: DataSource, tenant: string): Promise<DriftedEpisode[]> => {
  const latest = await latestCommitments(dataSource, tenant);
  const calls = new EpisodeCallRepository(dataSource);
  const drifted: DriftedEpisode[] = [];
  for (const [episodeId, entry] of latest) {
    const recorded = entry.details.eventLog as { digest?: string };
    if (eventLogDigest(await storedEventLog(dataSource, tenant, episodeId)).digest !== recorded.digest) {
      drifted.push({
        episodeId,
        seq: entry.seq,
        message: `episode ${episodeId}'s event log is not the one entry ${entry.seq} recorded ${when(entry)}`,
      });
    }
    const committed = committedCalls([entry]);
    const problem = committed && verifyCallChain(await calls.chain(tenant, episodeId), committed);
    if (problem) {
      drifted.push({
        episodeId,
        seq: entry.seq,
        message: `episode ${episodeId}'s calls are not the ones entry ${entry.seq} recorded ${when(entry)}: ${problem}`,
      });
    }
  }
  for (const { episodeId } of await calls.chainHeads(tenant)) {
    if (latest.has(episodeId)) {
      continue;
    }
    const problem = verifyCallChain(await calls.chain(tenant, episodeId), { count: 0, digest: genesisHash });
    if (problem) {
      drifted.push({ episodeId, seq: 0, message: `episode ${episodeId}'s calls, vouched for by no entry: ${problem}` });
    }
  }
  return drifted;
};

/**
 * The calls no entry commits to yet, per episode: every call of an episode never ended nor graded, and those answered
 * after its latest committing entry. Not a fault (an open episode's calls cannot be committed yet), but what a
 * reviewer must know is vouched for by its own links only.
 */
export const unvouchedCalls = async (dataSource: DataSource, tenant: string): Promise<UnvouchedCalls[]> => {
  const latest = await latestCommitments(dataSource, tenant);
  const heads = await new EpisodeCallRepository(dataSource).chainHeads(tenant);
  return heads.flatMap(({ episodeId, count }) => {
    const entry = latest.get(episodeId);
    const committed = (entry && committedCalls([entry])?.count) ?? 0;
    return count > committed ? [{ episodeId, from: committed + 1, to: count }] : [];
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
  // The head first: entries are only ever appended, so everything up to it reads the same afterwards, and the bundle
  // is the chain as it stood at that head.
  const head = (await audit.head(tenant)) ?? { seq: 0, hash: genesisHash };
  // A rollout's trials name their episodes; the episodes' own entries commit to their material, so they come along.
  const entries = (await audit.subjectEntries(tenant, subject.kind, subject.id)).filter((e) => e.seq <= head.seq);
  if (entries.length === 0) {
    return undefined;
  }
  const grades = new EpisodeGradeRepository(dataSource);
  const episodeIds = [
    ...new Set(
      entries.filter((e) => e.subject.kind === 'episode' && isJsonObject(e.details.eventLog)).map((e) => e.subject.id),
    ),
  ];
  const calls = new EpisodeCallRepository(dataSource);
  const episodes = [];
  for (const id of episodeIds) {
    // The calls the episode's latest grading committed to, and no more (later ones no entry vouches for).
    const recorded = committedCalls(entries.filter((e) => e.subject.kind === 'episode' && e.subject.id === id));
    episodes.push({
      id,
      events: await storedEventLog(dataSource, tenant, id),
      grades: asJson(await grades.grades(tenant, id)) as unknown[],
      ...(recorded ? { calls: asJson(await calls.committed(tenant, id, recorded.count)) as unknown[] } : {}),
    });
  }
  const links = chainLinks(entries, await audit.range(tenant, entries[0].seq, head.seq));
  return sealEvidenceBundle(
    { tenant, subject, exportedAt: new Date().toISOString(), entries, links, episodes, head },
    await audit.signingKey(),
  );
};
