import { DataSource } from 'typeorm';

import { ActorKind, evidenceBundleFormat, EvidenceBundle, keyFingerprint } from '@libs/evidence-trail';
import { AuditTrailRepository, ChainVerification, recordExport } from '@libs/persistence';

import {
  DriftedEpisode,
  driftedEpisodes,
  EvidenceSubject,
  exportEvidence,
  UnvouchedCalls,
  unvouchedCalls,
} from './episode-evidence';

/** What `mirror audit verify --json` prints and `GET /v1/audit/verify` answers: one result, wherever it is asked. */
export interface TrailVerification extends ChainVerification {
  drifted: DriftedEpisode[];
  /** Only with `deep`: the calls no entry vouches for yet (not a fault). */
  unvouched?: UnvouchedCalls[];
  valid: boolean;
}

/**
 * Walks the tenant's chain; with `deep`, also checks each ended or graded episode's material against what its entry
 * committed to, and lists the calls no entry vouches for yet (only on an intact chain: past a break nothing is evidence).
 */
export const verifyTrail = async (
  dataSource: DataSource,
  tenant: string,
  options: { deep?: boolean } = {},
): Promise<TrailVerification> => {
  const chain = await new AuditTrailRepository(dataSource).verify(tenant);
  const deep = options.deep === true && !chain.broken;
  const drifted = deep ? await driftedEpisodes(dataSource, tenant) : [];
  const unvouched = deep ? await unvouchedCalls(dataSource, tenant) : [];
  return {
    ...chain,
    drifted,
    ...(options.deep ? { unvouched } : {}),
    valid: !chain.broken && drifted.length === 0,
  };
};

/**
 * Exports a subject's evidence bundle and records who took it (`bundle.exported`, after the head the bundle carries,
 * with the SHA-256 of the text handed out): a bundle leaving the installation is itself evidence. The caller hands out
 * exactly `text`, so the digest names the file the reviewer received. Undefined, and nothing recorded, when the tenant
 * has no entry about the subject.
 */
export const exportEvidenceAudited = async (
  dataSource: DataSource,
  tenant: string,
  subject: { kind: EvidenceSubject; id: string },
  by: { actor: string; actorKind: ActorKind },
): Promise<{ bundle: EvidenceBundle; text: string } | undefined> => {
  const bundle = await exportEvidence(dataSource, tenant, subject);
  if (!bundle) {
    return undefined;
  }
  const text = `${JSON.stringify(bundle, null, 2)}\n`;
  await recordExport(dataSource, tenant, by, {
    action: 'bundle.exported',
    subject: { kind: subject.kind, id: subject.id },
    format: evidenceBundleFormat,
    content: text,
    details: {
      subject: { kind: subject.kind, id: subject.id },
      entries: bundle.entries.length,
      episodes: bundle.episodes.length,
      merkleRoot: bundle.merkleRoot,
      head: bundle.head.seq,
      signedBy: keyFingerprint(bundle.signature.publicKey),
    },
  });
  return { bundle, text };
};
