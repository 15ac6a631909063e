import type { AuditEntry, Versions } from './audit-entry';

/** What produced one subject of a bundle, as its entries name it. */
export interface SubjectVersions {
  subject: { kind: string; id: string };
  versions: Versions;
}

/**
 * The versions a bundle's entries name, per subject (each episode, the rollout), later entries adding to earlier ones
 * (a grading adds policies and grader to what the start named; a re-grading's win): what a reviewer reads beside
 * "valid" to know the stack, world seed, scenario (by id and digest), policy sets, grader and models behind the
 * evidence. Read from the entries themselves, so it is as trustworthy as the bundle's verification.
 */
export const bundleVersions = (entries: readonly AuditEntry[]): SubjectVersions[] => {
  const bySubject = new Map<string, SubjectVersions>();
  for (const entry of [...entries].sort((a, b) => a.seq - b.seq)) {
    if (Object.keys(entry.versions ?? {}).length === 0) {
      continue;
    }
    const key = `${entry.subject.kind}\u0000${entry.subject.id}`;
    const found = bySubject.get(key) ?? { subject: entry.subject, versions: {} };
    found.versions = { ...found.versions, ...entry.versions };
    bySubject.set(key, found);
  }
  return [...bySubject.values()];
};

/** One line per subject: `episode <id>: stack=… worldSeed=… scenario=… scenarioDigest=…`. */
export const describeVersions = (subject: SubjectVersions): string =>
  `${subject.subject.kind} ${subject.subject.id}: ${Object.entries(subject.versions)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')}`;
