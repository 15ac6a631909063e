import { DataSource } from 'typeorm';

import { ActorKind, evidenceBundleFormat, EvidenceBundle } from '@libs/evidence-trail';
import { AuditTrailRepository, ChainVerification } from '@libs/persistence';

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
 * Exports a subject's evidence bundle and records who took it (`bundle.exported`, after the head the bundle carries):
 * a bundle leaving the installation is itself evidence. Undefined, and nothing recorded, when the tenant has no entry
 * about the subject.
 */
export const exportEvidenceAudited = async (
  dataSource: DataSource,
  tenant: string,
  subject: { kind: EvidenceSubject; id: string },
  by: { actor: string; actorKind: ActorKind },
): Promise<EvidenceBundle | undefined> => {
  const bundle = await exportEvidence(dataSource, tenant, subject);
  if (!bundle) {
    return undefined;
  }
  await new AuditTrailRepository(dataSource).append(tenant, {
    ...by,
    action: 'bundle.exported',
    subject: { kind: subject.kind, id: subject.id },
    details: { subject: { kind: subject.kind, id: subject.id }, format: evidenceBundleFormat },
    versions: {},
  });
  return bundle;
};
