import { createHash } from 'node:crypto';
import * as os from 'node:os';

import canonicalize from 'canonicalize';

/** Who acted: people by role, the agent under test, simulated counterparties, Mirror's own machinery. */
export type ActorKind = 'engineer' | 'trainer' | 'reviewer' | 'admin' | 'agent' | 'persona' | 'grader' | 'system';

/** The versions that produced an action: enough to reproduce it (stack, world seed, scenario, policies, grader…). */
export type Versions = Record<string, string | number>;

/** What is appended: an action on a subject, by an actor, with what produced it. */
export interface AuditRecord {
  actor: string;
  actorKind: ActorKind;
  /** A dotted verb: `stack.ingested`, `episode.graded`, `verdict.disputed`, `rollout.signed_off`. */
  action: string;
  subject: { kind: string; id: string };
  /** What happened, as data a third party can read (digests of large material rather than the material). */
  details: Record<string, unknown>;
  versions: Versions;
}

/** One link of a tenant's chain: the record, its place, time, and the hashes that tie it to the one before. */
export interface AuditEntry extends AuditRecord {
  tenant: string;
  /** 1, 2, 3… per tenant, without gaps. */
  seq: number;
  id: string;
  /** ISO-8601 with milliseconds, as hashed. */
  at: string;
  prevHash: string;
  /**
   * How `hash` is made. Absent (version 1): over the whole entry, so only the whole entry proves its link. 2: over the
   * digest of its content, so a link is proved by its compact form (`ChainLink`) without the content.
   */
  hashVersion?: 2;
  hash: string;
}

/**
 * An entry of the chain as a bundle carries it when the entry is not about the bundle's subject: its place, the hash
 * before it, digests of its subject and content, and its hash (version 2 only). Enough to check the chain runs on
 * through it; nothing of what another episode or rollout did.
 */
export interface ChainLink {
  seq: number;
  hashVersion: 2;
  prevHash: string;
  /** SHA-256 of the canonical subject: a verifier tells an entry about the bundle's subject hidden here. */
  subjectDigest: string;
  /** SHA-256 of the canonical content (everything but the hashes). */
  contentDigest: string;
  hash: string;
}

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The previous hash of a chain's first entry. */
export const genesisHash = '0'.repeat(64);

export const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/**
 * RFC 8785 (JSON Canonicalization Scheme), so any implementation in any language hashes an entry to the same value.
 * JSON values only: a value that JSON cannot carry is a programming error here, not something to hash around.
 */
export const canonicalJson = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) {
    throw new Error('cannot canonicalize a value that is not JSON');
  }
  return text;
};

/** What an entry says, without its place in the chain's hashes. */
const contentOf = (entry: Omit<AuditEntry, 'hash'>) => ({
  tenant: entry.tenant,
  seq: entry.seq,
  id: entry.id,
  at: entry.at,
  actor: entry.actor,
  actorKind: entry.actorKind,
  action: entry.action,
  subject: entry.subject,
  details: entry.details,
  versions: entry.versions,
});

export const subjectDigest = (subject: { kind: string; id: string }): string =>
  sha256(canonicalJson({ kind: subject.kind, id: subject.id }));

export const entryContentDigest = (entry: Omit<AuditEntry, 'hash'>): string => sha256(canonicalJson(contentOf(entry)));

/** A version 2 link's hash: its place, the hash before it, and the digests of its subject and content. */
export const linkHash = (link: Omit<ChainLink, 'hash'>): string =>
  sha256(
    canonicalJson({
      hashVersion: 2,
      seq: link.seq,
      prevHash: link.prevHash,
      subject: link.subjectDigest,
      content: link.contentDigest,
    }),
  );

/**
 * The hash of an entry. Version 1 (entries written before version 2 existed, hashed as they always were): everything
 * in it but the hash, canonical JSON, SHA-256. Version 2: the hash of its compact link, so a verifier holding only the
 * link checks the chain's continuity through it, and one holding the entry checks its content too.
 */
export const entryHash = (entry: Omit<AuditEntry, 'hash'>): string =>
  entry.hashVersion === 2
    ? linkHash({
        seq: entry.seq,
        hashVersion: 2,
        prevHash: entry.prevHash,
        subjectDigest: subjectDigest(entry.subject),
        contentDigest: entryContentDigest(entry),
      })
    : sha256(canonicalJson({ ...contentOf(entry), prevHash: entry.prevHash }));

/** The compact form of a version 2 entry (a version 1 entry has none: its hash needs the whole of it). */
export const compactLink = (entry: AuditEntry): ChainLink | undefined =>
  entry.hashVersion === 2
    ? {
        seq: entry.seq,
        hashVersion: 2,
        prevHash: entry.prevHash,
        subjectDigest: subjectDigest(entry.subject),
        contentDigest: entryContentDigest(entry),
        hash: entry.hash,
      }
    : undefined;

/** Whether a link of a bundle is a compact one (no content) rather than a whole entry. */
export const isCompactLink = (link: AuditEntry | ChainLink): link is ChainLink =>
  'contentDigest' in link && !('details' in link);

/** A digest of any JSON material (a grade, a transcript), for an entry's details. */
export const materialDigest = (value: unknown): string => sha256(canonicalJson(value));

/** One step of a chained digest: the previous digest and the next item, so an item edited, dropped or moved shows. */
export const chainStep = (previous: string, item: unknown): string => sha256(`${previous}\n${canonicalJson(item)}`);

/**
 * An episode's event log as one digest, chained in order (each step hashes the previous digest with the next event),
 * so an event edited, dropped, added or moved changes it.
 */
export const eventLogDigest = (events: readonly unknown[]): { events: number; digest: string } => ({
  events: events.length,
  digest: events.reduce<string>(chainStep, genesisHash),
});

/** Who runs this process, for entries a person caused from the command line. */
export const commandLineActor = (): string => {
  try {
    return `cli:${os.userInfo().username}`;
  } catch {
    return 'cli';
  }
};
