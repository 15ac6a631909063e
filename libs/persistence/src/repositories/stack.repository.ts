import { randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import type { ActorKind } from '@libs/evidence-trail';
import type { StackModel } from '@libs/stack-ingestion';

import { StackVersionEntity } from '../entities/stack-version.entity';
import { StackEntity } from '../entities/stack.entity';
import { AuditTrailRepository } from './audit-trail.repository';

export interface StoredStackVersion {
  stackId: string;
  name: string;
  version: string;
  createdAt: Date;
  /** False when this exact content was already stored: the ingest was a no-op. */
  created: boolean;
}

/** Stacks and their versions, always scoped to a tenant. */
export class StackRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores a version unless the same content is already there; one transaction, so nothing is half-written. A new
   * version is recorded in the evidence trail in the same transaction, as done by `by`.
   */
  async saveVersion(
    tenantId: string,
    version: string,
    model: StackModel,
    by: { actor: string; actorKind: ActorKind } = { actor: 'mirror', actorKind: 'system' },
  ): Promise<StoredStackVersion> {
    return this.dataSource.transaction(async (manager) => {
      await manager
        .createQueryBuilder()
        .insert()
        .into(StackEntity)
        .values({ id: randomUUID(), tenantId, name: model.name })
        .orIgnore()
        .execute();
      const stack = await manager.findOneByOrFail(StackEntity, { tenantId, name: model.name });
      // Raw SQL: the model is stored as one jsonb value; TypeORM's partial-entity typing does not fit a JSON tree.
      const inserted: unknown[] = await manager.query(
        `INSERT INTO stack_versions (id, stack_id, tenant_id, version, model) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT ON CONSTRAINT uq_stack_versions_stack_version DO NOTHING RETURNING id`,
        [randomUUID(), stack.id, tenantId, version, JSON.stringify(model)],
      );
      const row = await manager.findOneOrFail(StackVersionEntity, {
        where: { stackId: stack.id, version },
        select: { createdAt: true, version: true },
      });
      if (inserted.length > 0) {
        await new AuditTrailRepository(this.dataSource).append(
          tenantId,
          {
            ...by,
            action: 'stack.ingested',
            subject: { kind: 'stack', id: stack.id },
            details: { name: model.name, services: model.services.map((s) => s.name) },
            versions: { stack: version },
          },
          manager,
        );
      }
      return { stackId: stack.id, name: stack.name, version, createdAt: row.createdAt, created: inserted.length > 0 };
    });
  }

  listStacks(tenantId: string): Promise<StackEntity[]> {
    return this.dataSource.getRepository(StackEntity).find({ where: { tenantId }, order: { name: 'ASC' } });
  }

  findStack(tenantId: string, stackId: string): Promise<StackEntity | null> {
    return this.dataSource.getRepository(StackEntity).findOneBy({ tenantId, id: stackId });
  }

  /** The newest version of a stack, with its model. */
  latestVersion(tenantId: string, stackId: string): Promise<StackVersionEntity | null> {
    return this.dataSource
      .getRepository(StackVersionEntity)
      .findOne({ where: { tenantId, stackId }, order: { createdAt: 'DESC' } });
  }

  /** A version by content hash (or a unique prefix of at least 8 characters, as with git). */
  async findVersion(tenantId: string, version: string): Promise<StackVersionEntity | null> {
    if (!/^[0-9a-f]{8,64}$/.test(version)) {
      return null;
    }
    const matches = await this.dataSource
      .getRepository(StackVersionEntity)
      .createQueryBuilder('v')
      .where('v.tenant_id = :tenantId AND v.version LIKE :prefix', { tenantId, prefix: `${version}%` })
      .limit(2)
      .getMany();
    return matches.length === 1 ? matches[0] : null;
  }
}
