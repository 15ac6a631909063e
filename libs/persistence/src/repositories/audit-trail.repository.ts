import { randomUUID } from 'node:crypto';

import { DataSource, EntityManager } from 'typeorm';

import {
  AuditEntry,
  AuditRecord,
  BrokenLink,
  ChainState,
  entryHash,
  genesisHash,
  newSigningKey,
  verifyHead,
  verifyLinks,
} from '@libs/evidence-trail';
import { Redactor } from '@libs/redaction';

import { installationSecret } from './installation-keys';

/** Details are redacted before they are hashed: a reviewer's comment quoting a card keeps a marker in the chain. */
const detailsRedactor = new Redactor();

interface EntryRow {
  tenant_id: string;
  seq: string;
  id: string;
  at: Date;
  actor: string;
  actor_kind: AuditEntry['actorKind'];
  action: string;
  subject_kind: string;
  subject_id: string;
  details: Record<string, unknown>;
  versions: AuditEntry['versions'];
  prev_hash: string;
  hash_version: number;
  hash: string;
}

const toEntry = (row: EntryRow): AuditEntry => ({
  tenant: row.tenant_id,
  seq: Number(row.seq),
  id: row.id,
  at: row.at.toISOString(),
  actor: row.actor,
  actorKind: row.actor_kind,
  action: row.action,
  subject: { kind: row.subject_kind, id: row.subject_id },
  details: row.details,
  versions: row.versions,
  prevHash: row.prev_hash,
  ...(row.hash_version === 2 ? { hashVersion: 2 as const } : {}),
  hash: row.hash,
});

export interface ChainVerification {
  tenant: string;
  entries: number;
  head: ChainState;
  broken?: BrokenLink;
}

/**
 * The evidence trail in PostgreSQL. Appends are serialized per tenant by a row lock on the tenant's head, so the
 * chain never forks under concurrent writers (api, CLI, workers); pass the caller's transaction to make an entry and
 * the action it records commit together.
 */
export class AuditTrailRepository {
  constructor(private readonly dataSource: DataSource) {}

  async append(tenant: string, record: AuditRecord, manager?: EntityManager): Promise<AuditEntry> {
    return this.appendBuilt(tenant, () => Promise.resolve(record), manager);
  }

  /**
   * Appends an entry whose record is built from the chain as it stands once the tenant's head is locked (a commitment
   * to earlier entries): no entry can be appended between what `build` reads, through the manager it is given, and
   * the entry's own place.
   */
  async appendBuilt(
    tenant: string,
    build: (manager: EntityManager) => Promise<AuditRecord>,
    manager?: EntityManager,
  ): Promise<AuditEntry> {
    const write = async (m: EntityManager): Promise<AuditEntry> => {
      await m.query(
        `INSERT INTO "audit_heads" ("tenant_id", "seq", "hash") VALUES ($1, 0, $2) ON CONFLICT DO NOTHING`,
        [tenant, genesisHash],
      );
      const [head] = await m.query<{ seq: string; hash: string }[]>(
        `SELECT "seq", "hash" FROM "audit_heads" WHERE "tenant_id" = $1 FOR UPDATE`,
        [tenant],
      );
      const record = await build(m);
      const { value: details, redactions } = detailsRedactor.json(record.details, '/details');
      // Milliseconds, as PostgreSQL and JavaScript both keep them exactly: the hash is over what is read back.
      const unhashed = {
        ...record,
        details: redactions.length > 0 ? { ...details, redactions } : details,
        tenant,
        seq: Number(head.seq) + 1,
        id: randomUUID(),
        at: new Date().toISOString(),
        prevHash: head.hash,
      };
      // What jsonb gives back (key order aside, which canonical JSON ignores): the hash must be of that.
      // Version 2: hashed over digests of its subject and content, so a bundle of another subject proves its link
      // without carrying it.
      const stored = { ...(JSON.parse(JSON.stringify(unhashed)) as typeof unhashed), hashVersion: 2 as const };
      const entry: AuditEntry = { ...stored, hash: entryHash(stored) };
      await m.query(
        `INSERT INTO "audit_entries" ("tenant_id", "seq", "id", "at", "actor", "actor_kind", "action", "subject_kind",
           "subject_id", "details", "versions", "prev_hash", "hash", "hash_version")
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          tenant,
          entry.seq,
          entry.id,
          entry.at,
          entry.actor,
          entry.actorKind,
          entry.action,
          entry.subject.kind,
          entry.subject.id,
          JSON.stringify(entry.details),
          JSON.stringify(entry.versions),
          entry.prevHash,
          entry.hash,
          entry.hashVersion,
        ],
      );
      await m.query(`UPDATE "audit_heads" SET "seq" = $2, "hash" = $3 WHERE "tenant_id" = $1`, [
        tenant,
        entry.seq,
        entry.hash,
      ]);
      return entry;
    };
    return manager ? write(manager) : this.dataSource.transaction(write);
  }

  /**
   * Appends the record unless the subject already has an entry of the same action whose details hold these (after
   * redaction, as stored): for actions that repeat without news, such as the same credential asked for again. Checked
   * under the head's lock, so two at once append one.
   */
  async appendOnce(tenant: string, record: AuditRecord, manager?: EntityManager): Promise<AuditEntry | undefined> {
    const write = async (m: EntityManager): Promise<AuditEntry | undefined> => {
      await m.query(
        `INSERT INTO "audit_heads" ("tenant_id", "seq", "hash") VALUES ($1, 0, $2) ON CONFLICT DO NOTHING`,
        [tenant, genesisHash],
      );
      await m.query(`SELECT 1 FROM "audit_heads" WHERE "tenant_id" = $1 FOR UPDATE`, [tenant]);
      const [found] = await m.query<unknown[]>(
        `SELECT 1 FROM "audit_entries" WHERE "tenant_id" = $1 AND "subject_kind" = $2 AND "subject_id" = $3
           AND "action" = $4 AND "details" @> $5::jsonb LIMIT 1`,
        [
          tenant,
          record.subject.kind,
          record.subject.id,
          record.action,
          JSON.stringify(detailsRedactor.json(record.details).value),
        ],
      );
      return found ? undefined : this.append(tenant, record, m);
    };
    return manager ? write(manager) : this.dataSource.transaction(write);
  }

  async head(tenant: string): Promise<ChainState | undefined> {
    const [row] = await this.dataSource.query<{ seq: string; hash: string }[]>(
      `SELECT "seq", "hash" FROM "audit_heads" WHERE "tenant_id" = $1`,
      [tenant],
    );
    return row ? { seq: Number(row.seq), hash: row.hash } : undefined;
  }

  /** A page of the chain in order, after `afterSeq`. */
  async page(tenant: string, afterSeq: number, limit = 1000): Promise<AuditEntry[]> {
    const rows = await this.dataSource.query<EntryRow[]>(
      `SELECT * FROM "audit_entries" WHERE "tenant_id" = $1 AND "seq" > $2 ORDER BY "seq" LIMIT $3`,
      [tenant, afterSeq, limit],
    );
    return rows.map(toEntry);
  }

  /** The chain from entry `fromSeq` to entry `toSeq`, both included, in order (read page by page). */
  async range(tenant: string, fromSeq: number, toSeq: number): Promise<AuditEntry[]> {
    const entries: AuditEntry[] = [];
    for (let after = fromSeq - 1; after < toSeq;) {
      const page = (await this.page(tenant, after, 1000)).filter((entry) => entry.seq <= toSeq);
      if (page.length === 0) {
        break;
      }
      entries.push(...page);
      after = page[page.length - 1].seq;
    }
    return entries;
  }

  /**
   * The entries about a subject, in chain order: an episode's own, or a rollout's together with its episodes' (those
   * whose details name the rollout).
   */
  async forSubject(
    tenant: string,
    kind: string,
    id: string,
    runner: Pick<EntityManager, 'query'> = this.dataSource,
  ): Promise<AuditEntry[]> {
    const rows = await runner.query<EntryRow[]>(
      `SELECT * FROM "audit_entries"
       WHERE "tenant_id" = $1 AND (("subject_kind" = $2 AND "subject_id" = $3) OR ($2 = 'rollout' AND "details"->>'rolloutId' = $3))
       ORDER BY "seq"`,
      [tenant, kind, id],
    );
    return rows.map(toEntry);
  }

  /**
   * A subject's entries (as `forSubject`) and every entry of the episodes they name (a rollout's trials), in chain
   * order: what an evidence bundle carries, and what a rollout's close commits to. Through `runner` when the caller
   * reads inside its transaction.
   */
  async subjectEntries(
    tenant: string,
    kind: string,
    id: string,
    runner: Pick<EntityManager, 'query'> = this.dataSource,
  ): Promise<AuditEntry[]> {
    const own = await this.forSubject(tenant, kind, id, runner);
    const named = [
      ...new Set(
        own.map((e) => e.details.episodeId).filter((episode): episode is string => typeof episode === 'string'),
      ),
    ];
    const episodes =
      named.length === 0
        ? []
        : (
            await runner.query<EntryRow[]>(
              `SELECT * FROM "audit_entries" WHERE "tenant_id" = $1 AND "subject_kind" = 'episode'
                 AND "subject_id" = ANY($2::text[])`,
              [tenant, named],
            )
          ).map(toEntry);
    const bySeq = new Map([...own, ...episodes].map((e) => [e.seq, e]));
    return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  }

  /** Walks a tenant's whole chain page by page and names the first broken link, if any. */
  async verify(tenant: string): Promise<ChainVerification> {
    let state: ChainState = { seq: 0, hash: genesisHash };
    let count = 0;
    for (;;) {
      const entries = await this.page(tenant, state.seq, 1000);
      if (entries.length === 0) {
        break;
      }
      const checked = verifyLinks(entries, state);
      count += checked.broken ? checked.state.seq - state.seq : entries.length;
      if (checked.broken) {
        return { tenant, entries: count, head: checked.state, broken: checked.broken };
      }
      state = checked.state;
    }
    const broken = verifyHead(state, await this.head(tenant));
    return { tenant, entries: count, head: state, ...(broken ? { broken } : {}) };
  }

  /** The installation's evidence-signing key (Ed25519, PKCS#8 PEM), made once. */
  signingKey(): Promise<string> {
    return installationSecret(this.dataSource, 'audit-signing', newSigningKey);
  }
}
