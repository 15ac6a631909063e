import type { StackModel } from '@libs/stack-ingestion';
import { buildWorld, World, WorldSizes } from '@libs/synthetic-data';

import { ServiceTwin } from './service-twin';

/** Every service of a stack compiled against one world: built once per (stack version, seed, sizes), then shared. */
export class StackTwin {
  readonly services: ReadonlyMap<string, ServiceTwin>;

  constructor(
    readonly model: StackModel,
    readonly world: World,
  ) {
    this.services = new Map(model.services.map((service) => [service.name, new ServiceTwin(service, world.seed)]));
  }

  static build(model: StackModel, stackVersion: string, seed: number, sizes: WorldSizes): StackTwin {
    return new StackTwin(model, buildWorld(model, stackVersion, seed, sizes));
  }
}
