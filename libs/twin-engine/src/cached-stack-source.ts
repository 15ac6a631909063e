import type { StackModel } from '@libs/stack-ingestion';

import { StackSource } from './twin-engine';

type Loaded = { version: string; model: StackModel } | undefined;

/**
 * Keeps the last few stack versions a process served, parsed. A stored version never changes (its name is its
 * content's), so every world of a rollout can be built from the same model object: the database is not asked for
 * (and the process does not parse) a model of hundreds of kilobytes per episode, and what is compiled per model (the
 * document's schema validators) is compiled once. Only full versions found are kept: a prefix may become ambiguous,
 * and a version not found may be stored later.
 */
export class CachedStackSource extends StackSource {
  private readonly loaded = new Map<string, Promise<Loaded>>();

  constructor(
    private readonly source: StackSource,
    private readonly capacity = 8,
  ) {
    super();
  }

  load(tenantId: string, stackVersion: string): Promise<Loaded> {
    const key = JSON.stringify([tenantId, stackVersion]);
    const known = this.loaded.get(key);
    if (known) {
      // Least recently used is dropped first: the map's order is use order.
      this.loaded.delete(key);
      this.loaded.set(key, known);
      return known;
    }
    const loading = this.source.load(tenantId, stackVersion);
    this.loaded.set(key, loading);
    const forget = () => {
      if (this.loaded.get(key) === loading) {
        this.loaded.delete(key);
      }
    };
    loading.then((found) => (found?.version === stackVersion ? undefined : forget()), forget);
    for (const oldest of this.loaded.keys()) {
      if (this.loaded.size <= this.capacity) {
        break;
      }
      this.loaded.delete(oldest);
    }
    return loading;
  }
}
