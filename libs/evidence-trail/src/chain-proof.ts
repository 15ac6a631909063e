import { AuditEntry, ChainLink, compactLink, entryHash, isCompactLink, linkHash, subjectDigest } from './audit-entry';
import type { BundleProblem } from './bundle-problem';
import type { ChainState } from './chain-verification';

/** What a bundle says of the tenant's chain: its exported entries, the entries between them and the head, the head. */
export interface ChainSegment {
  subject: { kind: string; id: string };
  entries: readonly AuditEntry[];
  /**
   * Every entry of the chain from the first exported one to the head that is not exported itself, in chain order:
   * compact (`ChainLink`) when its hash allows it, whole when it is an older entry whose hash needs all of it.
   */
  links: readonly (AuditEntry | ChainLink)[];
  head: ChainState;
}

/**
 * The links a bundle needs beside its entries: the chain from the first exported entry to the head, less the exported
 * entries, each compact when its hash version allows (another episode's actions stay out of the bundle; the bundle
 * grows by a fixed size per entry of other subjects, not by their content). `chain` is the tenant's chain from that
 * first entry up to the head, in order.
 */
export const chainLinks = (
  entries: readonly AuditEntry[],
  chain: readonly AuditEntry[],
): (AuditEntry | ChainLink)[] => {
  const exported = new Set(entries.map((entry) => entry.seq));
  return chain.filter((entry) => !exported.has(entry.seq)).map((entry) => compactLink(entry) ?? entry);
};

/** How a link is named in a message: its action when the bundle carries it whole. */
const named = (link: AuditEntry | ChainLink): string =>
  isCompactLink(link) ? `entry ${link.seq}` : `entry ${link.seq} (${link.action})`;

/**
 * The entries of a bundle's subject: its own, a rollout's (those naming it) and its episodes'. A compact link shows
 * its subject by digest only: one whose subject is the bundle's or one of its episodes' is found; one about another
 * subject that names the rollout only in its details cannot be told (the rollout's close commits to those by its
 * Merkle root, checked apart).
 */
const aboutSubject = (segment: ChainSegment): ((link: AuditEntry | ChainLink) => boolean) => {
  const { kind, id } = segment.subject;
  const own = (entry: AuditEntry) =>
    (entry.subject.kind === kind && entry.subject.id === id) || (kind === 'rollout' && entry.details.rolloutId === id);
  const whole = [...segment.entries, ...segment.links.filter((link): link is AuditEntry => !isCompactLink(link))];
  const episodes = new Set(
    whole
      .filter(own)
      .map((entry) => entry.details.episodeId)
      .filter((episode): episode is string => typeof episode === 'string'),
  );
  const digests = new Set([
    subjectDigest({ kind, id }),
    ...[...episodes].map((episode) => subjectDigest({ kind: 'episode', id: episode })),
  ]);
  return (link) =>
    isCompactLink(link)
      ? digests.has(link.subjectDigest)
      : own(link) || (link.subject.kind === 'episode' && episodes.has(link.subject.id));
};

/**
 * Checks that a bundle's entries are links of one chain ending at its head: together with the links, seq runs without
 * a gap from the first exported entry to the head, each entry's previous hash is the hash of the one before, each link
 * hashes to its hash, and the last hash is the head's. An exported entry dropped (a gap), moved, altered (even with
 * its hash recomputed: the next entry no longer follows it) or hidden among the links, and a head that is not the
 * chain's, are named. The first exported entry's own predecessor is not in the bundle: the proof runs forward to the
 * head, which a reviewer compares with the head they hold (`mirror audit verify`, `GET /v1/audit/verify`).
 */
export const verifyChainSegment = (segment: ChainSegment): BundleProblem[] => {
  if (segment.entries.length === 0) {
    return [];
  }
  const problems: BundleProblem[] = [];
  const places = new Map<AuditEntry | ChainLink, string>([
    ...segment.entries.map((entry, i): [AuditEntry, string] => [entry, `/entries/${i}`]),
    ...segment.links.map((link, i): [AuditEntry | ChainLink, string] => [link, `/links/${i}`]),
  ]);
  const about = aboutSubject(segment);
  segment.links.forEach((link, i) => {
    if ((isCompactLink(link) ? linkHash(link) : entryHash(link)) !== link.hash) {
      problems.push({
        pointer: `/links/${i}`,
        message: `${named(link)} of the chain does not match its hash: it was changed after it was written`,
      });
    }
    if (about(link)) {
      problems.push({
        pointer: `/links/${i}`,
        message: `${named(link)} is about ${segment.subject.kind} ${segment.subject.id} but is not among the bundle's entries`,
      });
    }
  });
  const ordered = [...places.keys()].sort((a, b) => a.seq - b.seq);
  let previous: AuditEntry | ChainLink | undefined;
  for (const entry of ordered) {
    const place = places.get(entry)!;
    if (previous && entry.seq === previous.seq) {
      problems.push({ pointer: place, message: `entry ${entry.seq} is in the bundle twice` });
      continue;
    }
    if (previous && entry.seq !== previous.seq + 1) {
      const missing =
        entry.seq === previous.seq + 2
          ? `entry ${previous.seq + 1} is`
          : `entries ${previous.seq + 1}–${entry.seq - 1} are`;
      problems.push({
        pointer: place,
        message: `${missing} missing from the chain: entry ${previous.seq} is followed by entry ${entry.seq}`,
      });
    } else if (previous && entry.prevHash !== previous.hash) {
      problems.push({
        pointer: `${place}/prevHash`,
        message: `${named(entry)} does not follow entry ${previous.seq}: entry ${previous.seq} is not the one the chain holds`,
      });
    }
    previous = entry;
  }
  const last = ordered[ordered.length - 1];
  if (segment.head.seq !== last.seq || segment.head.hash !== last.hash) {
    problems.push({
      pointer: '/head',
      message:
        segment.head.seq === last.seq
          ? `the head's hash is not entry ${last.seq}'s: the head or entry ${last.seq} is not the chain's`
          : `the head is entry ${segment.head.seq} but the chain in the bundle ends at entry ${last.seq}`,
    });
  }
  return problems;
};
