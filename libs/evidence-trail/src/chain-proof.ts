import { AuditEntry, entryHash } from './audit-entry';
import type { BundleProblem } from './bundle-problem';
import type { ChainState } from './chain-verification';

/** What a bundle says of the tenant's chain: its exported entries, the entries between them and the head, the head. */
export interface ChainSegment {
  subject: { kind: string; id: string };
  entries: readonly AuditEntry[];
  /** Every entry of the chain from the first exported one to the head that is not exported itself, in chain order. */
  links: readonly AuditEntry[];
  head: ChainState;
}

/**
 * The links a bundle needs beside its entries: the chain from the first exported entry to the head, less the exported
 * entries. `chain` is the tenant's chain from that first entry up to the head, in order.
 */
export const chainLinks = (entries: readonly AuditEntry[], chain: readonly AuditEntry[]): AuditEntry[] => {
  const exported = new Set(entries.map((entry) => entry.seq));
  return chain.filter((entry) => !exported.has(entry.seq));
};

/** The entries of a bundle's subject: its own, a rollout's (those naming it) and its episodes'. */
const aboutSubject = (segment: ChainSegment): ((entry: AuditEntry) => boolean) => {
  const { kind, id } = segment.subject;
  const own = (entry: AuditEntry) =>
    (entry.subject.kind === kind && entry.subject.id === id) || (kind === 'rollout' && entry.details.rolloutId === id);
  const episodes = new Set(
    [...segment.entries, ...segment.links]
      .filter(own)
      .map((entry) => entry.details.episodeId)
      .filter((episode): episode is string => typeof episode === 'string'),
  );
  return (entry) => own(entry) || (entry.subject.kind === 'episode' && episodes.has(entry.subject.id));
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
  const places = new Map<AuditEntry, string>([
    ...segment.entries.map((entry, i): [AuditEntry, string] => [entry, `/entries/${i}`]),
    ...segment.links.map((entry, i): [AuditEntry, string] => [entry, `/links/${i}`]),
  ]);
  const about = aboutSubject(segment);
  segment.links.forEach((entry, i) => {
    if (entryHash(entry) !== entry.hash) {
      problems.push({
        pointer: `/links/${i}`,
        message: `entry ${entry.seq} (${entry.action}) of the chain does not match its hash: it was changed after it was written`,
      });
    }
    if (about(entry)) {
      problems.push({
        pointer: `/links/${i}`,
        message: `entry ${entry.seq} (${entry.action}) is about ${segment.subject.kind} ${segment.subject.id} but is not among the bundle's entries`,
      });
    }
  });
  const ordered = [...places.keys()].sort((a, b) => a.seq - b.seq);
  let previous: AuditEntry | undefined;
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
        message: `entry ${entry.seq} (${entry.action}) does not follow entry ${previous.seq}: entry ${previous.seq} is not the one the chain holds`,
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
