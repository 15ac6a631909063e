import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';

import type { StackModel } from '@libs/stack-ingestion';

import { StackEntity } from './stack.entity';

/** One immutable StackModel, keyed by the sha256 of its content so that re-ingesting the same bundle adds nothing. */
@Entity('stack_versions')
@Unique('uq_stack_versions_stack_version', ['stackId', 'version'])
export class StackVersionEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'stack_id', type: 'uuid' })
  stackId!: string;

  // One direction only (no `versions` on StackEntity): the two entities would otherwise import each other.
  @ManyToOne(() => StackEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'stack_id' })
  stack?: StackEntity;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'char', length: 64 })
  version!: string;

  @Column({ type: 'jsonb' })
  model!: StackModel;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
