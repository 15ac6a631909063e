import { AuditEntry, entryHash, genesisHash } from './audit-entry';

/** The first place a chain stops holding, named so a reviewer can find it. */
export interface BrokenLink {
  seq: number;
  id?: string;
  problem: 'edited' | 'missing' | 'out_of_order' | 'unlinked' | 'head_mismatch';
  message: string;
}

export interface ChainState {
  /** The last entry checked. */
  seq: number;
  hash: string;
}

/**
 * Checks entries in the order given, continuing from `from` (the chain's start, or the last entry of the previous
 * page): each one's seq follows, its previous hash is the hash before it, and its hash is what its content hashes to.
 * Stops at the first break: after it, nothing is evidence.
 */
export const verifyLinks = (
  entries: readonly AuditEntry[],
  from: ChainState = { seq: 0, hash: genesisHash },
): { state: ChainState; broken?: BrokenLink } => {
  let state = from;
  for (const entry of entries) {
    if (entry.seq !== state.seq + 1) {
      return {
        state,
        broken:
          entry.seq > state.seq + 1
            ? {
                seq: state.seq + 1,
                problem: 'missing',
                message: `entry ${state.seq + 1} is missing: ${state.seq} is followed by ${entry.seq}`,
              }
            : {
                seq: entry.seq,
                id: entry.id,
                problem: 'out_of_order',
                message: `entry ${entry.seq} (${entry.id}) comes after ${state.seq}`,
              },
      };
    }
    if (entry.hash !== entryHash(entry)) {
      return {
        state,
        broken: {
          seq: entry.seq,
          id: entry.id,
          problem: 'edited',
          message: `entry ${entry.seq} (${entry.id}, ${entry.action}) does not match its hash: it was changed after it was written`,
        },
      };
    }
    if (entry.prevHash !== state.hash) {
      return {
        state,
        broken: {
          seq: entry.seq,
          id: entry.id,
          problem: 'unlinked',
          message: `entry ${entry.seq} (${entry.id}) does not follow entry ${state.seq}: its previous hash is another chain's`,
        },
      };
    }
    state = { seq: entry.seq, hash: entry.hash };
  }
  return { state };
};

/** The recorded head must be the last entry: entries removed from the end show here. */
export const verifyHead = (state: ChainState, head: ChainState | undefined): BrokenLink | undefined => {
  const expected = head ?? { seq: 0, hash: genesisHash };
  if (expected.seq !== state.seq || expected.hash !== state.hash) {
    return {
      seq: state.seq + 1,
      problem: 'head_mismatch',
      message: `the chain ends at entry ${state.seq} but its head is entry ${expected.seq}: entries were removed or replaced at the end`,
    };
  }
  return undefined;
};
