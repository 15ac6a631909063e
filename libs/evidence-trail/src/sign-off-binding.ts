import { AuditEntry, isJsonObject } from './audit-entry';
import type { BundleProblem } from './bundle-problem';

/**
 * A sign-off names the `rollout.closed` entry it signed (its hash) and the Merkle root that close committed to. In a
 * bundle, that close must be there, be the signed rollout's, and have committed to that root: a sign-off cannot be
 * carried over to a record other than the one reviewed.
 */
export const verifyBoundSignOffs = (entries: readonly AuditEntry[]): BundleProblem[] =>
  entries.flatMap((entry, index): BundleProblem[] => {
    const closure = entry.action === 'rollout.signed_off' ? entry.details.closure : undefined;
    if (!isJsonObject(closure)) {
      return [];
    }
    const pointer = `/entries/${index}/details/closure`;
    const closed = entries.find((e) => e.action === 'rollout.closed' && e.hash === closure.entryHash);
    if (!closed || closed.subject.id !== entry.subject.id) {
      return [
        {
          pointer,
          message: `the sign-off of rollout ${entry.subject.id} (entry ${entry.seq}) is bound to rollout.closed entry ${String(closure.entryHash)}, which is not this rollout's close in the bundle`,
        },
      ];
    }
    if (closed.details.merkleRoot !== closure.merkleRoot) {
      return [
        {
          pointer: `${pointer}/merkleRoot`,
          message: `the sign-off of rollout ${entry.subject.id} (entry ${entry.seq}) is bound to Merkle root ${String(closure.merkleRoot)}, but its close (entry ${closed.seq}) committed to ${String(closed.details.merkleRoot)}`,
        },
      ];
    }
    return [];
  });
