import { Column, CreateDateColumn, Entity, PrimaryColumn, Unique } from 'typeorm';

/** A client's stack, named in its mirror.yaml; each ingest that changes its content adds a version. */
@Entity('stacks')
@Unique('uq_stacks_tenant_name', ['tenantId', 'name'])
export class StackEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
