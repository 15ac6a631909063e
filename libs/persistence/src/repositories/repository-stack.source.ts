import type { StackModel } from '@libs/stack-ingestion';
import { StackSource } from '@libs/twin-engine';

import { StackRepository } from './stack.repository';

/** The twin engine reads stack versions from the stacks repository. */
export class RepositoryStackSource extends StackSource {
  constructor(private readonly stacks: StackRepository) {
    super();
  }

  async load(tenantId: string, stackVersion: string): Promise<{ version: string; model: StackModel } | undefined> {
    const found = await this.stacks.findVersion(tenantId, stackVersion);
    return found ? { version: found.version, model: found.model } : undefined;
  }
}
