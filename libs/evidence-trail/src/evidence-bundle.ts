import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign, verify } from 'node:crypto';

import {
  AuditEntry,
  canonicalJson,
  ChainLink,
  entryHash,
  eventLogDigest,
  isJsonObject,
  materialDigest,
  sha256,
} from './audit-entry';
import type { BundleProblem } from './bundle-problem';
import { callLogDigest } from './call-chain';
import { verifyChainSegment } from './chain-proof';
import { merkleRoot } from './merkle-tree';
import { rolloutCommitment, rolloutMaterial } from './rollout-material';
import { verifyBoundSignOffs } from './sign-off-binding';

/**
 * 3: the bundle carries the chain from its first entry to the head (`links`), proving its entries are the chain's,
 * with entries of other subjects as compact links where their hash allows (no content of theirs).
 */
export const evidenceBundleFormat = 'mirror-evidence/3' as const;
/** Bundles whose links are all whole entries: verified as they always were. */
const formatWithWholeLinks = 'mirror-evidence/2';
/** Bundles exported before: verified as before, and reported as carrying no proof of their place in the chain. */
const formatWithoutLinks = 'mirror-evidence/1';

/**
 * The material an episode's entries commit to by digest: its event log, its grades, and the calls that left no event
 * (reads) up to its grading, in the order answered (absent when its grading recorded none: graded before they were).
 */
export interface EpisodeMaterial {
  id: string;
  events: unknown[];
  grades: unknown[];
  calls?: unknown[];
}

/**
 * What a reviewer takes away: a subject's audit entries, the material they commit to, a Merkle root over the entries,
 * the tenant's chain head at export, signed with the installation's Ed25519 key. `verifyEvidenceBundle` checks it with
 * nothing but the file (and, to pin who signed it, the key's fingerprint from `mirror audit key`).
 */
export interface EvidenceBundle {
  format: typeof evidenceBundleFormat;
  tenant: string;
  subject: { kind: string; id: string };
  exportedAt: string;
  entries: AuditEntry[];
  /**
   * The tenant's chain from the first exported entry up to the head at export, less the exported entries themselves:
   * with them, a verifier recomputes every link to the head, so an entry dropped, moved or altered shows.
   */
  links: (AuditEntry | ChainLink)[];
  episodes: EpisodeMaterial[];
  merkleRoot: string;
  head: { seq: number; hash: string };
  signature: { algorithm: 'Ed25519'; publicKey: string; value: string };
}

/** A new signing key, as PKCS#8 PEM (what the installation stores once). */
export const newSigningKey = (): string =>
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const publicKeyText = (key: KeyObject): string =>
  (key.export({ type: 'spki', format: 'der' }) as Buffer).toString('base64');

/** A short, stable name of a public key: SHA-256 of its DER, hex, first 32 characters. */
export const keyFingerprint = (publicKey: string): string => sha256(Buffer.from(publicKey, 'base64')).slice(0, 32);

export const publicKeyOf = (privateKeyPem: string): string =>
  publicKeyText(createPublicKey(createPrivateKey(privateKeyPem)));

const signedPart = (bundle: Omit<EvidenceBundle, 'signature' | 'format'> & { format: string }): Buffer =>
  Buffer.from(
    canonicalJson({
      format: bundle.format,
      tenant: bundle.tenant,
      subject: bundle.subject,
      exportedAt: bundle.exportedAt,
      entries: bundle.entries,
      ...(bundle.format === formatWithoutLinks ? {} : { links: bundle.links }),
      episodes: bundle.episodes,
      merkleRoot: bundle.merkleRoot,
      head: bundle.head,
    }),
  );

export const sealEvidenceBundle = (
  unsigned: Omit<EvidenceBundle, 'format' | 'merkleRoot' | 'signature'>,
  privateKeyPem: string,
): EvidenceBundle => {
  const body = {
    ...unsigned,
    format: evidenceBundleFormat,
    merkleRoot: merkleRoot(unsigned.entries.map((e) => e.hash)),
  };
  const key = createPrivateKey(privateKeyPem);
  return {
    ...body,
    signature: {
      algorithm: 'Ed25519',
      publicKey: publicKeyText(createPublicKey(key)),
      value: sign(null, signedPart(body), key).toString('base64'),
    },
  };
};

/**
 * Every check a bundle must pass offline, with the place of each failure: the format, each entry's hash, their order,
 * the Merkle root, the root each rollout's close committed to over its entries before it, the episodes' event logs and grades against the digests their entries recorded, and the signature
 * (by the pinned key when a fingerprint is given). Empty means the bundle is what the installation exported.
 */
export const verifyEvidenceBundle = (value: unknown, pinnedFingerprint?: string): BundleProblem[] => {
  if (
    !isJsonObject(value) ||
    ![evidenceBundleFormat, formatWithWholeLinks, formatWithoutLinks].includes(value.format as string)
  ) {
    return [{ pointer: '/format', message: `not an evidence bundle (format must be "${evidenceBundleFormat}")` }];
  }
  const bundle = value as unknown as Omit<EvidenceBundle, 'format'> & { format: string };
  if (!Array.isArray(bundle.entries) || !Array.isArray(bundle.episodes) || !isJsonObject(bundle.signature)) {
    return [{ pointer: '', message: 'the bundle lacks entries, episodes or a signature' }];
  }
  const problems: BundleProblem[] = [];
  if (bundle.format === formatWithoutLinks) {
    problems.push({
      pointer: '/format',
      message: `a ${formatWithoutLinks} bundle carries no proof that its entries are links of the tenant's chain: export it again`,
    });
  } else if (!Array.isArray(bundle.links) || !isJsonObject(bundle.head)) {
    problems.push({ pointer: '/links', message: 'the bundle lacks the chain from its entries to the head (links)' });
  } else if (!bundle.links.every(isJsonObject)) {
    problems.push({ pointer: '/links', message: 'a link of the chain is not an entry nor a compact link' });
  } else {
    problems.push(...verifyChainSegment(bundle));
  }
  problems.push(...verifyBoundSignOffs(bundle.entries));
  bundle.entries.forEach((entry, index) => {
    if (entryHash(entry) !== entry.hash) {
      problems.push({
        pointer: `/entries/${index}`,
        message: `entry ${entry.seq} (${entry.action}) does not match its hash: it was changed after it was written`,
      });
    }
    if (index > 0 && entry.seq <= bundle.entries[index - 1].seq) {
      problems.push({ pointer: `/entries/${index}/seq`, message: `entry ${entry.seq} is out of order` });
    }
    if (entry.tenant !== bundle.tenant) {
      problems.push({ pointer: `/entries/${index}/tenant`, message: `entry ${entry.seq} belongs to another tenant` });
    }
  });
  if (merkleRoot(bundle.entries.map((e) => e.hash)) !== bundle.merkleRoot) {
    problems.push({ pointer: '/merkleRoot', message: 'the Merkle root is not the root of the entries' });
  }
  bundle.entries.forEach((entry, index) => {
    const committed = entry.action === 'rollout.closed' ? entry.details : undefined;
    if (!committed || typeof committed.merkleRoot !== 'string') {
      return;
    }
    const found = rolloutCommitment(rolloutMaterial(bundle.entries, entry.subject.id, entry.seq));
    if (found.merkleRoot !== committed.merkleRoot) {
      problems.push({
        pointer: `/entries/${index}/details/merkleRoot`,
        message:
          `rollout ${entry.subject.id} committed at its close to ${String(committed.entries)} entries, and the ` +
          `bundle's ${found.entries} entries of it before that close have another Merkle root: entries are missing or changed`,
      });
    }
  });
  bundle.episodes.forEach((episode, index) => {
    const graded = bundle.entries.filter(
      (e) => e.subject.kind === 'episode' && e.subject.id === episode.id && isJsonObject(e.details.eventLog),
    );
    if (graded.length === 0) {
      problems.push({
        pointer: `/episodes/${index}`,
        message: `no entry of episode ${episode.id} commits to its material`,
      });
      return;
    }
    const recorded = graded[graded.length - 1].details as {
      eventLog: { digest: string };
      grades?: string;
      calls?: { count: number; digest: string };
    };
    if (eventLogDigest(episode.events).digest !== recorded.eventLog.digest) {
      problems.push({
        pointer: `/episodes/${index}/events`,
        message: `episode ${episode.id}'s event log is not the one its grading recorded`,
      });
    }
    if (recorded.grades !== undefined && materialDigest(episode.grades) !== recorded.grades) {
      problems.push({
        pointer: `/episodes/${index}/grades`,
        message: `episode ${episode.id}'s grades are not the ones its grading recorded`,
      });
    }
    if (recorded.calls !== undefined) {
      const calls = Array.isArray(episode.calls) ? callLogDigest(episode.calls) : undefined;
      if (calls?.count !== recorded.calls.count || calls.digest !== recorded.calls.digest) {
        problems.push({
          pointer: `/episodes/${index}/calls`,
          message: `episode ${episode.id}'s calls are not the ${recorded.calls.count} its grading recorded`,
        });
      }
    }
  });
  try {
    const key = createPublicKey({
      key: Buffer.from(bundle.signature.publicKey, 'base64'),
      format: 'der',
      type: 'spki',
    });
    if (!verify(null, signedPart(bundle), key, Buffer.from(bundle.signature.value, 'base64'))) {
      problems.push({
        pointer: '/signature',
        message: 'the signature does not match the bundle: it was changed after export',
      });
    }
  } catch (error) {
    problems.push({ pointer: '/signature', message: `the signature cannot be read: ${(error as Error).message}` });
  }
  if (pinnedFingerprint && keyFingerprint(bundle.signature.publicKey) !== pinnedFingerprint) {
    problems.push({
      pointer: '/signature/publicKey',
      message: `signed by key ${keyFingerprint(bundle.signature.publicKey)}, not the pinned ${pinnedFingerprint}`,
    });
  }
  return problems;
};
