import { chainStep, genesisHash } from './audit-entry';

/**
 * An episode's calls that left no event (reads, mostly) as their chain commits to them: count and the last link's
 * hash. Each stored call carries its place `n` (1, 2, 3… per episode) and the hash of its content chained to the call
 * before, so the chain's head is this digest of the calls in order.
 */
export const callLogDigest = (calls: readonly unknown[]): { count: number; digest: string } => ({
  count: calls.length,
  digest: calls.reduce<string>(chainStep, genesisHash),
});

/** A stored call with its link: the content is what is hashed (and what a bundle carries). */
export interface ChainedCallRow {
  /** The row's own id, to name it. */
  id: string;
  n: number;
  prevHash: string;
  hash: string;
  call: { n: number; method?: unknown; service?: unknown } & Record<string, unknown>;
}

/**
 * Checks an episode's stored calls, in `n` order, against what its grading or end entry recorded (`count` calls ending
 * at `digest`): names the first call deleted, edited, unlinked or moved, or says the calls were rewritten whole. Calls
 * after the first `count` (answered after grading) are checked as links but committed to by no entry.
 */
export const verifyCallChain = (
  rows: readonly ChainedCallRow[],
  recorded: { count: number; digest: string },
): string | undefined => {
  let previous = { n: 0, hash: genesisHash };
  for (const row of rows) {
    const what = `call ${row.n} (row ${row.id}, ${String(row.call.method)} ${String(row.call.service)})`;
    if (row.n !== previous.n + 1) {
      return row.n > previous.n + 1
        ? `call ${previous.n + 1} is missing: call ${previous.n} is followed by call ${row.n}`
        : `${what} comes after call ${previous.n}: the calls were reordered`;
    }
    if (row.call.n !== row.n || chainStep(row.prevHash, row.call) !== row.hash) {
      return `${what} does not match its hash: it was changed after it was written`;
    }
    if (row.prevHash !== previous.hash) {
      return `${what} does not follow call ${previous.n}: its previous hash is another chain's`;
    }
    previous = { n: row.n, hash: row.hash };
    if (row.n === recorded.count && row.hash !== recorded.digest) {
      return `the first ${recorded.count} calls are not the ones recorded: they were rewritten`;
    }
  }
  if (previous.n < recorded.count) {
    const missing =
      previous.n + 1 === recorded.count ? `call ${recorded.count} is` : `calls ${previous.n + 1}–${recorded.count} are`;
    return `${missing} missing: ${recorded.count} were recorded, ${previous.n} remain`;
  }
  if (recorded.count === 0 && recorded.digest !== genesisHash) {
    return 'no calls were recorded but a digest of some';
  }
  return undefined;
};
