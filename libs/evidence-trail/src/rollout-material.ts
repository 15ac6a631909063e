import { AuditEntry } from './audit-entry';
import { merkleRoot } from './merkle-tree';

/** What a rollout's close commits to: how many entries, and the Merkle root over their hashes in chain order. */
export interface RolloutCommitment {
  entries: number;
  merkleRoot: string;
}

const aboutRollout = (entry: AuditEntry, rolloutId: string): boolean =>
  (entry.subject.kind === 'rollout' && entry.subject.id === rolloutId) || entry.details.rolloutId === rolloutId;

/**
 * The entries a rollout's close commits to: the rollout's own (and those whose details name it, such as its episodes'
 * starts), and every entry of the episodes its trials name, written before `beforeSeq`, in chain order. The same
 * selection an exported bundle of the rollout carries, so a verifier holding only the bundle recomputes the root.
 */
export const rolloutMaterial = (entries: readonly AuditEntry[], rolloutId: string, beforeSeq: number): AuditEntry[] => {
  const earlier = entries.filter((entry) => entry.seq < beforeSeq);
  const own = earlier.filter((entry) => aboutRollout(entry, rolloutId));
  const episodes = new Set(
    own.map((entry) => entry.details.episodeId).filter((id): id is string => typeof id === 'string'),
  );
  return earlier
    .filter(
      (entry) => aboutRollout(entry, rolloutId) || (entry.subject.kind === 'episode' && episodes.has(entry.subject.id)),
    )
    .sort((a, b) => a.seq - b.seq);
};

export const rolloutCommitment = (material: readonly AuditEntry[]): RolloutCommitment => ({
  entries: material.length,
  merkleRoot: merkleRoot(material.map((entry) => entry.hash)),
});
