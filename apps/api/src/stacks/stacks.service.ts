import { Injectable, NotFoundException } from '@nestjs/common';

import type { Principal } from '@libs/access';
import { StackRepository } from '@libs/persistence';
import { ingestStack, StackSummary, summarizeStack } from '@libs/stack-ingestion';

export interface IngestOutcome {
  summary: StackSummary;
  created: boolean;
}

@Injectable()
export class StacksService {
  constructor(private readonly stacks: StackRepository) {}

  /** `fileName` undefined: the uploader named nothing, and `standIn` is used only to place problems. */
  async ingest(by: Principal, fileName: string | undefined, standIn: string, content: Buffer): Promise<IngestOutcome> {
    const { model, version } = await ingestStack({
      kind: 'upload',
      name: fileName ?? standIn,
      content,
      unnamed: fileName === undefined,
    });
    const stored = await this.stacks.saveVersion(by.tenantId, version, model, {
      actor: by.actor,
      actorKind: by.role,
    });
    return { summary: summarizeStack(model, { id: stored.stackId, version }), created: stored.created };
  }

  async list(tenantId: string): Promise<{ stacks: { id: string; name: string; createdAt: Date }[] }> {
    const stacks = await this.stacks.listStacks(tenantId);
    return { stacks: stacks.map(({ id, name, createdAt }) => ({ id, name, createdAt })) };
  }

  async latest(tenantId: string, stackId: string): Promise<StackSummary> {
    const version = /^[0-9a-f-]{36}$/.test(stackId) ? await this.stacks.latestVersion(tenantId, stackId) : null;
    if (!version) {
      throw new NotFoundException(`no stack ${stackId}`);
    }
    return summarizeStack(version.model, { id: stackId, version: version.version });
  }
}
