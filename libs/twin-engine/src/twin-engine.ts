import { randomUUID } from 'node:crypto';

import type { StackModel } from '@libs/stack-ingestion';
import { defaultWorldSizes, worldKey, WorldSizes } from '@libs/synthetic-data';

import { Episode, EpisodeClosedError } from './episode';
import { newEpisodeSecret } from './episode-credentials';
import { EpisodeDescriptor, EpisodeScenario, EpisodeStore, FaultSettings, LoggedEvent } from './episode-events';
import { EpisodeState } from './episode-state';
import { PackRegistry } from './packs/twin-pack';
import { StackTwin } from './stack-twin';

/** Where the engine finds the StackModel of a version: the stacks repository in production. */
export abstract class StackSource {
  /** The model of a version, given in full or by a unique prefix, with its full version. */
  abstract load(tenantId: string, stackVersion: string): Promise<{ version: string; model: StackModel } | undefined>;
}

/** A source holding one model in memory: in-process twins, tests and benchmarks, where no database is involved. */
export class StaticStackSource extends StackSource {
  constructor(private readonly model: StackModel) {
    super();
  }

  load(_tenantId: string, stackVersion: string): Promise<{ version: string; model: StackModel } | undefined> {
    return Promise.resolve({ version: stackVersion, model: this.model });
  }
}

export class EpisodeNotFoundError extends Error {
  constructor(readonly episodeId: string) {
    super(`no episode ${episodeId}`);
  }
}

export class StackVersionNotFoundError extends Error {
  constructor(readonly stackVersion: string) {
    super(`no stack version ${stackVersion}`);
  }
}

export interface NewEpisode {
  tenantId: string;
  stackVersion: string;
  seed: number;
  sizes?: Partial<WorldSizes>;
  faults?: FaultSettings;
  /** Choose the id (the CLI's default episode); a random UUID otherwise. */
  id?: string;
  /** The scenario the episode plays; it must be one of the stack version's. */
  scenario?: EpisodeScenario;
}

export class ScenarioNotFoundError extends Error {
  constructor(
    readonly scenarioId: string,
    readonly stackVersion: string,
  ) {
    super(`stack version ${stackVersion} has no scenario "${scenarioId}"`);
  }
}

/**
 * Owns the episodes a gateway process serves. Worlds are built once per (stack version, seed, sizes) and shared by
 * every episode on them; an episode not in memory (after a restart, or served elsewhere before) is rebuilt from its
 * world and its event log on first use.
 */
export class TwinEngine {
  private readonly twins = new Map<string, Promise<StackTwin>>();
  private readonly episodes = new Map<string, Promise<Episode>>();
  /** The same episodes once loaded, for synchronous access on the read path. */
  private readonly loaded = new Map<string, Episode>();

  constructor(
    private readonly store: EpisodeStore,
    private readonly stacks: StackSource,
    /** The twin packs (Slack, mail, ERP …) stacks may use; `builtInPacks` from `twins/` in the apps. */
    private readonly packs: PackRegistry = new Map(),
  ) {}

  async createEpisode(request: NewEpisode): Promise<Episode> {
    // Episodes record the full version, whatever prefix the caller used, so their worlds are found again later.
    const stack = await this.stacks.load(request.tenantId, request.stackVersion);
    if (!stack) {
      throw new StackVersionNotFoundError(request.stackVersion);
    }
    if (request.scenario && !stack.model.scenarios.some((s) => s.scenario.id === request.scenario?.id)) {
      throw new ScenarioNotFoundError(request.scenario.id, stack.version);
    }
    const descriptor: EpisodeDescriptor = {
      id: request.id ?? randomUUID(),
      tenantId: request.tenantId,
      stackVersion: stack.version,
      seed: request.seed,
      secret: newEpisodeSecret(),
      sizes: { ...defaultWorldSizes, ...request.sizes },
      ...(request.faults ? { faults: request.faults } : {}),
      ...(request.scenario ? { scenario: request.scenario } : {}),
    };
    const twin = await this.twinFor(descriptor);
    await this.store.createEpisode(descriptor);
    const episode = new Episode(descriptor, twin, new EpisodeState(twin.world), this.store);
    this.track(descriptor.id, Promise.resolve(episode));
    return episode;
  }

  /** The episode, from memory or rebuilt from the store. */
  episode(episodeId: string): Promise<Episode> {
    let episode = this.episodes.get(episodeId);
    if (!episode) {
      episode = this.rebuild(episodeId);
      this.track(episodeId, episode);
    }
    return episode;
  }

  /** The episode if it is in memory already; undefined means "ask `episode()`". */
  loadedEpisode(episodeId: string): Episode | undefined {
    return this.loaded.get(episodeId);
  }

  private track(episodeId: string, episode: Promise<Episode>): void {
    this.episodes.set(episodeId, episode);
    this.loaded.delete(episodeId);
    episode.then(
      (ready) => {
        if (this.episodes.get(episodeId) === episode) {
          this.loaded.set(episodeId, ready);
        }
      },
      () => this.episodes.delete(episodeId),
    );
  }

  /** The episode's log after a sequence number, durable events only: what workflows catch up from. */
  async events(episodeId: string, afterSeq = 0): Promise<LoggedEvent[]> {
    await this.episode(episodeId);
    return (await this.store.events(episodeId)).filter((entry) => entry.seq > afterSeq);
  }

  /**
   * Back to the world as it was, as a NEW episode (a fork before the first event): an episode's log is never
   * rewritten, so a graded history stays what was graded, and a reset is no way to hide what was done.
   */
  reset(episodeId: string): Promise<Episode> {
    return this.fork(episodeId, 0);
  }

  /**
   * A new episode that starts where another stood after event `atSeq` (its latest when absent), with a secret of its
   * own: tokens of the source open nothing in the fork.
   */
  async fork(episodeId: string, atSeq?: number): Promise<Episode> {
    const source = await this.episode(episodeId);
    const seq = atSeq ?? source.state.seq;
    const events = await this.store.events(episodeId, seq);
    const descriptor: EpisodeDescriptor = {
      ...source.descriptor,
      id: randomUUID(),
      secret: newEpisodeSecret(),
      forkedFrom: { episodeId, seq },
    };
    await this.store.createEpisode(descriptor);
    await this.store.append(descriptor.id, events);
    const state = new EpisodeState(source.twin.world);
    events.forEach((event) => state.apply(event));
    const fork = new Episode(descriptor, source.twin, state, this.store);
    this.track(descriptor.id, Promise.resolve(fork));
    return fork;
  }

  /** Faults for an open episode; an ended one refuses (faults injected after the end would re-judge it). */
  async setFaults(episodeId: string, faults: FaultSettings | undefined): Promise<void> {
    const episode = await this.episode(episodeId);
    if (episode.state.closed) {
      throw new EpisodeClosedError(episodeId);
    }
    await this.store.setFaults(episodeId, faults);
    episode.configureFaults(faults);
  }

  /** Forgets in-memory state (as a crash would); the next request rebuilds from the store. */
  evict(episodeId: string): void {
    this.episodes.delete(episodeId);
    this.loaded.delete(episodeId);
  }

  private async rebuild(episodeId: string): Promise<Episode> {
    const descriptor = await this.store.findEpisode(episodeId);
    if (!descriptor) {
      throw new EpisodeNotFoundError(episodeId);
    }
    const twin = await this.twinFor(descriptor);
    const state = new EpisodeState(twin.world);
    for (const event of await this.store.events(episodeId)) {
      state.apply(event);
    }
    return new Episode(descriptor, twin, state, this.store);
  }

  private twinFor(descriptor: EpisodeDescriptor): Promise<StackTwin> {
    const key = `${descriptor.tenantId}:${worldKey(descriptor.stackVersion, descriptor.seed, descriptor.sizes)}`;
    let twin = this.twins.get(key);
    if (!twin) {
      twin = this.stacks.load(descriptor.tenantId, descriptor.stackVersion).then((stack) => {
        if (!stack) {
          throw new StackVersionNotFoundError(descriptor.stackVersion);
        }
        return StackTwin.build(stack.model, stack.version, descriptor.seed, descriptor.sizes, this.packs);
      });
      this.twins.set(key, twin);
      twin.catch(() => this.twins.delete(key));
    }
    return twin;
  }
}
