import { createHash } from 'node:crypto';

/**
 * A Merkle tree over entry hashes as RFC 6962 (Certificate Transparency) builds it: leaves hashed with a 0x00 prefix,
 * nodes with 0x01, the left subtree the largest power of two below the size. One root commits to a rollout's entries
 * in order; the same construction anywhere gives the same root.
 */
const hash = (prefix: number, ...parts: Buffer[]): Buffer =>
  parts.reduce((h, part) => h.update(part), createHash('sha256').update(Buffer.from([prefix]))).digest();

const rootOf = (leaves: readonly Buffer[]): Buffer => {
  if (leaves.length === 0) {
    return createHash('sha256').digest();
  }
  if (leaves.length === 1) {
    return hash(0x00, leaves[0]);
  }
  let split = 1;
  while (split * 2 < leaves.length) {
    split *= 2;
  }
  return hash(0x01, rootOf(leaves.slice(0, split)), rootOf(leaves.slice(split)));
};

/** The root over hex hashes, in order, as hex. */
export const merkleRoot = (hashes: readonly string[]): string =>
  rootOf(hashes.map((h) => Buffer.from(h, 'hex'))).toString('hex');
