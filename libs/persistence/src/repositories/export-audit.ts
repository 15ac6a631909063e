import { DataSource } from 'typeorm';

import { ActorKind, AuditEntry, sha256, Versions } from '@libs/evidence-trail';

import { AuditTrailRepository } from './audit-trail.repository';
import { readEpisodeVersions } from './episode-versions';

/** What left the installation: a review report (HTML or PDF), or a signed evidence bundle. */
export interface ExportedMaterial {
  action: 'report.exported' | 'bundle.exported';
  subject: { kind: 'episode' | 'rollout'; id: string };
  format: string;
  /** The file as handed out: its digest identifies it later, its content is not kept. */
  content: string | Buffer;
  details?: Record<string, unknown>;
}

/** The versions of an exported subject: an episode's world and task, a rollout's stack. */
const subjectVersions = async (
  dataSource: DataSource,
  tenant: string,
  subject: ExportedMaterial['subject'],
): Promise<Versions> => {
  if (subject.kind === 'episode') {
    return (await readEpisodeVersions(dataSource, tenant, subject.id)) ?? {};
  }
  const [rollout] = await dataSource.query<{ stack_version: string }[]>(
    'SELECT stack_version FROM rollouts WHERE id::text = $1 AND tenant_id = $2',
    [subject.id, tenant],
  );
  return rollout ? { stack: rollout.stack_version.trim() } : {};
};

/**
 * Records in the evidence trail that material left the installation: who took it, of what, in which format, and the
 * SHA-256 of the file handed out (so a copy met later can be told for this one), never its content.
 */
export const recordExport = async (
  dataSource: DataSource,
  tenant: string,
  by: { actor: string; actorKind: ActorKind },
  exported: ExportedMaterial,
): Promise<AuditEntry> => {
  const content = typeof exported.content === 'string' ? Buffer.from(exported.content) : exported.content;
  return new AuditTrailRepository(dataSource).append(tenant, {
    actor: by.actor,
    actorKind: by.actorKind,
    action: exported.action,
    subject: exported.subject,
    details: { format: exported.format, bytes: content.length, sha256: sha256(content), ...exported.details },
    versions: await subjectVersions(dataSource, tenant, exported.subject),
  });
};
