import { DataSource } from 'typeorm';

import { ApiKeyLookup, mintApiKey, Role, StoredApiKey } from '@libs/access';
import type { ActorKind } from '@libs/evidence-trail';

import { AuditTrailRepository } from './audit-trail.repository';

/** A key as listed: never its hash or salt. */
export interface ApiKeyView {
  id: string;
  tenantId: string;
  role: Role;
  name: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
}

interface Row {
  id: string;
  tenant_id: string;
  role: string;
  name: string;
  salt: Buffer;
  hash: Buffer;
  created_by: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
}

const toView = (row: Row): ApiKeyView => ({
  id: row.id,
  tenantId: row.tenant_id,
  role: row.role as Role,
  name: row.name,
  createdBy: row.created_by,
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at?.toISOString() ?? null,
  revokedAt: row.revoked_at?.toISOString() ?? null,
  revokedBy: row.revoked_by,
});

const keyId = /^[0-9a-f]{16}$/;

export interface KeyActor {
  actor: string;
  actorKind: ActorKind;
}

/**
 * API keys of tenants. Creating and revoking one is recorded in the tenant's evidence trail in the same transaction;
 * the trail names the key by id and role, never by anything that would open it.
 */
export class ApiKeyRepository implements ApiKeyLookup {
  constructor(private readonly dataSource: DataSource) {}

  /** Makes a key: the returned `token` is the only time the whole key exists outside its holder. */
  async create(
    tenantId: string,
    key: { role: Role; name: string; expiresAt: string | null },
    by: KeyActor,
  ): Promise<ApiKeyView & { token: string }> {
    const minted = await mintApiKey();
    return this.dataSource.transaction(async (manager) => {
      const [row] = await manager.query<Row[]>(
        `INSERT INTO api_keys (id, tenant_id, role, name, salt, hash, created_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [minted.id, tenantId, key.role, key.name, minted.salt, minted.hash, by.actor, key.expiresAt],
      );
      await new AuditTrailRepository(this.dataSource).append(
        tenantId,
        {
          ...by,
          action: 'api_key.created',
          subject: { kind: 'api_key', id: minted.id },
          details: { role: key.role, name: key.name, expiresAt: key.expiresAt },
          versions: {},
        },
        manager,
      );
      return { ...toView(row), token: minted.token };
    });
  }

  async list(tenantId: string): Promise<ApiKeyView[]> {
    const rows = await this.dataSource.query<Row[]>(
      'SELECT * FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, id',
      [tenantId],
    );
    return rows.map(toView);
  }

  async find(tenantId: string, id: string): Promise<ApiKeyView | undefined> {
    if (!keyId.test(id)) {
      return undefined;
    }
    const [row] = await this.dataSource.query<Row[]>('SELECT * FROM api_keys WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      id,
    ]);
    return row ? toView(row) : undefined;
  }

  /**
   * Revokes a key of the tenant; undefined when the tenant has no such key. Revoking a revoked key changes nothing
   * (and records nothing again): the first revocation stands.
   */
  async revoke(tenantId: string, id: string, by: KeyActor): Promise<ApiKeyView | undefined> {
    if (!keyId.test(id)) {
      return undefined;
    }
    return this.dataSource.transaction(async (manager) => {
      const updated = await manager.query<[Row[], number]>(
        `UPDATE api_keys SET revoked_at = now(), revoked_by = $3
         WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING *`,
        [tenantId, id, by.actor],
      );
      const [row] = updated[0];
      if (!row) {
        return this.find(tenantId, id);
      }
      await new AuditTrailRepository(this.dataSource).append(
        tenantId,
        {
          ...by,
          action: 'api_key.revoked',
          subject: { kind: 'api_key', id },
          details: { role: row.role, name: row.name },
          versions: {},
        },
        manager,
      );
      return toView(row);
    });
  }

  /** By the key's public id alone: authentication is how the tenant is learnt. */
  async findForAuthentication(id: string): Promise<StoredApiKey | undefined> {
    if (!keyId.test(id)) {
      return undefined;
    }
    const [row] = await this.dataSource.query<Row[]>('SELECT * FROM api_keys WHERE id = $1', [id]);
    return row
      ? {
          id: row.id,
          tenantId: row.tenant_id,
          role: row.role,
          salt: row.salt,
          hash: row.hash,
          expiresAt: row.expires_at?.toISOString() ?? null,
          revokedAt: row.revoked_at?.toISOString() ?? null,
        }
      : undefined;
  }
}
