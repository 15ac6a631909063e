import { Injectable, NotFoundException } from '@nestjs/common';

import { MirrorSettings } from '@libs/config';
import { StackRepository } from '@libs/persistence';
import { ingestStack, StackSummary, summarizeStack } from '@libs/stack-ingestion';

export interface IngestOutcome {
  summary: StackSummary;
  created: boolean;
}

@Injectable()
export class StacksService {
  constructor(
    private readonly stacks: StackRepository,
    private readonly config: MirrorSettings,
  ) {}

  /** `fileName` undefined: the uploader named nothing, and `standIn` is used only to place problems. */
  async ingest(fileName: string | undefined, standIn: string, content: Buffer): Promise<IngestOutcome> {
    const { model, version } = await ingestStack({
      kind: 'upload',
      name: fileName ?? standIn,
      content,
      unnamed: fileName === undefined,
    });
    // No API keys yet (the access issue): the entry says so rather than naming someone.
    const stored = await this.stacks.saveVersion(this.config.MIRROR_TENANT, version, model, {
      actor: 'api:unauthenticated',
      actorKind: 'engineer',
    });
    return { summary: summarizeStack(model, { id: stored.stackId, version }), created: stored.created };
  }

  async list(): Promise<{ stacks: { id: string; name: string; createdAt: Date }[] }> {
    const stacks = await this.stacks.listStacks(this.config.MIRROR_TENANT);
    return { stacks: stacks.map(({ id, name, createdAt }) => ({ id, name, createdAt })) };
  }

  async latest(stackId: string): Promise<StackSummary> {
    const version = /^[0-9a-f-]{36}$/.test(stackId)
      ? await this.stacks.latestVersion(this.config.MIRROR_TENANT, stackId)
      : null;
    if (!version) {
      throw new NotFoundException(`no stack ${stackId}`);
    }
    return summarizeStack(version.model, { id: stackId, version: version.version });
  }
}
