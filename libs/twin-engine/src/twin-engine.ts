import { randomUUID } from 'node:crypto';

import type { StackModel } from '@libs/stack-ingestion';
import { defaultWorldSizes, worldKey, WorldSizes } from '@libs/synthetic-data';

import { Episode, EpisodeClosedError } from './episode';
import { newEpisodeSecret } from './episode-credentials';
import {
  CallObserver,
  EpisodeDescriptor,
  EpisodeScenario,
  EpisodeStarter,
  EpisodeStore,
  FaultSettings,
  IssuedCredential,
  tokenFingerprint,
  LoggedEvent,
} from './episode-events';
import { EpisodeState } from './episode-state';
import { episodeBaseBytes, worldHeapBytes } from './memory-estimate';
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
  /** Who starts it, as the evidence trail records the start; Mirror's own machinery when nobody else is known. */
  startedBy?: EpisodeStarter;
}

export class ScenarioNotFoundError extends Error {
  constructor(
    readonly scenarioId: string,
    readonly stackVersion: string,
  ) {
    super(`stack version ${stackVersion} has no scenario "${scenarioId}"`);
  }
}

/** How much of its episodes and worlds the engine keeps in memory. */
export interface EngineMemoryOptions {
  /**
   * Estimated bytes of worlds and episodes held (`memory-estimate.ts`); beyond it the least recently used idle
   * episodes, then the worlds no held episode stands on, are dropped and rebuilt on their next use. Unbounded when
   * absent.
   */
  budgetBytes?: number;
  /** An episode is idle once unused this long with no write in flight and not pinned (default 10 s). */
  idleMs?: number;
  /** Wall-clock milliseconds; tests give their own. */
  clock?: () => number;
}

/** What the engine keeps in memory, and how far it trusts what it keeps. */
export interface EngineOptions extends EngineMemoryOptions {
  /**
   * A held episode unused this long reads the log's newer events, if any, before it answers again: another process
   * (a gateway an agent failed over to while this one was unreachable) may have written meanwhile. Unset: never, for
   * an engine that is its episodes' only copy (one process playing them); 0: before every request.
   */
  recheckAfterMs?: number;
}

/** The engine's memory options from a budget in MB (`MIRROR_TWIN_MEMORY_MB`); 0 is no budget. */
export const memoryBudgetOf = (megabytes: number): EngineMemoryOptions =>
  megabytes > 0 ? { budgetBytes: megabytes * 1024 * 1024 } : {};

/**
 * Owns the episodes a gateway process serves. Worlds are built once per (stack version, seed, sizes) and shared by
 * every episode on them; an episode not in memory (after a restart, evicted, or served elsewhere before) is rebuilt
 * from its world and its event log on first use. With a memory budget, what is least recently used goes first.
 */
export class TwinEngine {
  private readonly twins = new Map<string, Promise<StackTwin>>();
  private readonly episodes = new Map<string, Promise<Episode>>();
  /** The same episodes once loaded, for synchronous access on the read path. */
  private readonly loaded = new Map<string, Episode>();
  /** When each episode and world was last used, least recent first (a touch moves an entry to the end). */
  private readonly episodeUse = new Map<string, number>();
  private readonly worldUse = new Map<string, number>();
  /** The world key of every episode held or loading: a world any of them stands on stays. */
  private readonly worldOf = new Map<string, string>();
  private readonly worldBytes = new Map<string, number>();
  /** Episodes someone holds an object of for a while (a runner's session): never evicted while pinned. */
  private readonly pins = new Map<string, number>();
  private readonly budgetBytes: number | undefined;
  private readonly idleMs: number;
  private readonly clock: () => number;
  private checkedAt = 0;
  /** What eviction dropped so far: for the memory benchmark and operators. */
  readonly evictions = { episodes: 0, worlds: 0 };

  constructor(
    private readonly store: EpisodeStore,
    private readonly stacks: StackSource,
    /** The twin packs (Slack, mail, ERP …) stacks may use; `builtInPacks` from `twins/` in the apps. */
    private readonly packs: PackRegistry = new Map(),
    memory: EngineOptions = {},
    /** Told of every call that leaves no event in an episode's log (reads), when the process records them. */
    private readonly observer?: CallObserver,
  ) {
    this.budgetBytes = memory.budgetBytes;
    this.idleMs = memory.idleMs ?? 10_000;
    this.clock = memory.clock ?? Date.now;
    this.recheckAfterMs = memory.recheckAfterMs;
  }

  private readonly recheckAfterMs: number | undefined;

  /** Whether a held episode has been unused long enough that another process may have written to it meanwhile. */
  private stale(episodeId: string): boolean {
    return (
      this.recheckAfterMs !== undefined &&
      this.clock() - (this.episodeUse.get(episodeId) ?? -Infinity) >= this.recheckAfterMs
    );
  }

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
    // Known before the world is built, so the world is not dropped while this episode is made on it.
    this.worldOf.set(descriptor.id, this.worldKeyOf(descriptor));
    let twin: StackTwin;
    try {
      twin = await this.twinFor(descriptor);
      await this.store.createEpisode(descriptor, request.startedBy);
    } catch (error) {
      this.worldOf.delete(descriptor.id);
      throw error;
    }
    const episode = new Episode(descriptor, twin, new EpisodeState(twin.world), this.store, this.observer);
    this.track(descriptor.id, Promise.resolve(episode));
    return episode;
  }

  /**
   * The tenant's episode, from memory or rebuilt from the store. Another tenant's episode is not found, held in
   * memory or not: the tenant comes from whoever serves the caller (the process's, a key's), never from the request.
   */
  episode(tenantId: string, episodeId: string): Promise<Episode> {
    let episode = this.episodes.get(episodeId);
    if (!episode) {
      episode = this.rebuild(tenantId, episodeId);
      this.track(episodeId, episode);
      return episode;
    }
    const stale = this.stale(episodeId);
    this.touch(episodeId);
    return episode.then(async (held) => {
      if (held.descriptor.tenantId !== tenantId) {
        throw new EpisodeNotFoundError(episodeId);
      }
      if (stale) {
        await held.catchUp();
      }
      return held;
    });
  }

  /** The tenant's episode if it is in memory already; undefined means "ask `episode()`". */
  loadedEpisode(tenantId: string, episodeId: string): Episode | undefined {
    const episode = this.loaded.get(episodeId);
    // One that may be behind its log is had through `episode()`, which reads what it missed first.
    if (episode?.descriptor.tenantId !== tenantId || this.stale(episodeId)) {
      return undefined;
    }
    this.touch(episodeId);
    return episode;
  }

  /**
   * Keeps the episode in memory until the returned function is called: for a caller that keeps the `Episode` object
   * across turns (its clock, its tokens), which would go stale if the episode were evicted and rebuilt under it.
   */
  pin(episodeId: string): () => void {
    this.pins.set(episodeId, (this.pins.get(episodeId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      const left = (this.pins.get(episodeId) ?? 1) - 1;
      if (left > 0) {
        this.pins.set(episodeId, left);
      } else {
        this.pins.delete(episodeId);
      }
    };
  }

  /** Whether the episode is held in memory now (not evicted, not loading). */
  holds(episodeId: string): boolean {
    return this.loaded.has(episodeId);
  }

  /** How many episodes and worlds are held, and their estimated bytes. */
  residency(): { episodes: number; worlds: number; bytes: number } {
    return { episodes: this.loaded.size, worlds: this.worldBytes.size, bytes: this.heldBytes() };
  }

  private track(episodeId: string, episode: Promise<Episode>): void {
    this.episodes.set(episodeId, episode);
    this.loaded.delete(episodeId);
    this.touch(episodeId);
    episode.then(
      (ready) => {
        if (this.episodes.get(episodeId) === episode) {
          this.loaded.set(episodeId, ready);
          this.worldOf.set(episodeId, this.worldKeyOf(ready.descriptor));
          this.enforceBudget();
        }
      },
      () => {
        this.episodes.delete(episodeId);
        this.episodeUse.delete(episodeId);
        this.worldOf.delete(episodeId);
      },
    );
  }

  private touch(episodeId: string): void {
    const now = this.clock();
    this.episodeUse.delete(episodeId);
    this.episodeUse.set(episodeId, now);
    // Episodes grow with their writes: the budget is looked at again now and then, not only when one is loaded.
    if (this.budgetBytes !== undefined && now - this.checkedAt >= 250) {
      this.enforceBudget();
    }
  }

  /**
   * The episode's log after a sequence number, durable events only: what workflows catch up from. Only the new
   * events are read, so a workflow that catches up before every turn pays for what happened since, not the history.
   */
  async events(tenantId: string, episodeId: string, afterSeq = 0): Promise<LoggedEvent[]> {
    const held = this.loaded.get(episodeId)?.descriptor ?? (await this.store.findEpisode(tenantId, episodeId));
    if (held?.tenantId !== tenantId) {
      throw new EpisodeNotFoundError(episodeId);
    }
    return this.store.events(tenantId, episodeId, afterSeq > 0 ? { after: afterSeq } : {});
  }

  /**
   * Back to the world as it was, as a NEW episode (a fork before the first event): an episode's log is never
   * rewritten, so a graded history stays what was graded, and a reset is no way to hide what was done.
   */
  reset(tenantId: string, episodeId: string, by?: EpisodeStarter): Promise<Episode> {
    return this.fork(tenantId, episodeId, 0, by);
  }

  /**
   * A new episode that starts where another stood after event `atSeq` (its latest when absent, and never beyond it),
   * with a secret of its own: tokens of the source open nothing in the fork. The store copies the log itself, so a
   * fork at event 50,000 costs one statement; the fork's state is then replayed from its own log like any rebuild.
   */
  async fork(tenantId: string, episodeId: string, atSeq?: number, by?: EpisodeStarter): Promise<Episode> {
    const source = await this.episode(tenantId, episodeId);
    const seq = Math.min(atSeq ?? source.state.seq, source.state.seq);
    const descriptor: EpisodeDescriptor & { forkedFrom: { episodeId: string; seq: number } } = {
      ...source.descriptor,
      id: randomUUID(),
      secret: newEpisodeSecret(),
      forkedFrom: { episodeId, seq },
    };
    await this.store.forkEpisode(descriptor, by);
    return this.episode(tenantId, descriptor.id);
  }

  /** Faults for an open episode; an ended one refuses (faults injected after the end would re-judge it). */
  async setFaults(
    tenantId: string,
    episodeId: string,
    faults: FaultSettings | undefined,
    by?: EpisodeStarter,
  ): Promise<void> {
    const episode = await this.episode(tenantId, episodeId);
    if (episode.state.closed) {
      throw new EpisodeClosedError(episodeId);
    }
    await this.store.setFaults(tenantId, episodeId, faults, by);
    episode.configureFaults(faults);
  }

  /**
   * The token of `principal` for a service of the episode, asked for by the operator; its issuance is in the evidence
   * trail before the token is handed out. Undefined when the service issues none.
   */
  async issueToken(
    tenantId: string,
    episodeId: string,
    credential: IssuedCredential,
    by?: EpisodeStarter,
  ): Promise<string | undefined> {
    const episode = await this.episode(tenantId, episodeId);
    const token = episode.tokenFor(credential.service, credential.principal, credential.scopes);
    if (token) {
      await this.store.recordCredentialIssued(
        tenantId,
        episodeId,
        { ...credential, fingerprint: tokenFingerprint(token) },
        by,
      );
    }
    return token;
  }

  /**
   * The company's agent's own token for a service of the episode (every scope), handed to the agent under test by
   * whoever runs it in-process (`mirror run`, a rollout's trial): its issuance is in the evidence trail, as `by`'s,
   * before the token is handed out, as an operator's request is. Undefined when the service issues none.
   */
  async issueAgentToken(
    tenantId: string,
    episodeId: string,
    service: string,
    by?: EpisodeStarter,
  ): Promise<string | undefined> {
    const episode = await this.episode(tenantId, episodeId);
    const principal = episode.agentPrincipalFor(service);
    const token = episode.agentTokenFor(service);
    if (principal === undefined || token === undefined) {
      return undefined;
    }
    await this.store.recordCredentialIssued(
      tenantId,
      episodeId,
      { service, principal, fingerprint: tokenFingerprint(token) },
      by,
    );
    return token;
  }

  /** Forgets in-memory state (as a crash would); the next request rebuilds from the store. */
  evict(episodeId: string): void {
    this.episodes.delete(episodeId);
    this.loaded.delete(episodeId);
    this.episodeUse.delete(episodeId);
    this.worldOf.delete(episodeId);
  }

  private heldBytes(): number {
    let bytes = 0;
    for (const episode of this.loaded.values()) {
      bytes += episodeBaseBytes + episode.state.approximateBytes;
    }
    for (const worldBytes of this.worldBytes.values()) {
      bytes += worldBytes;
    }
    return bytes;
  }

  /**
   * Drops what is least recently used until the estimate is within the budget: idle episodes first (no write in
   * flight, unused for `idleMs`, so no caller is between reading and writing one), then worlds no episode held or
   * loading stands on. What is busy stays, even over the budget: it is dropped once idle.
   */
  private enforceBudget(): void {
    if (this.budgetBytes === undefined) {
      return;
    }
    const now = this.clock();
    this.checkedAt = now;
    let held = this.heldBytes();
    if (held <= this.budgetBytes) {
      return;
    }
    for (const [episodeId, usedAt] of this.episodeUse) {
      if (held <= this.budgetBytes) {
        break;
      }
      const episode = this.loaded.get(episodeId);
      if (!episode || now - usedAt < this.idleMs || !episode.idle || this.pins.has(episodeId)) {
        continue;
      }
      held -= episodeBaseBytes + episode.state.approximateBytes;
      this.evict(episodeId);
      this.evictions.episodes++;
    }
    const standing = new Set(this.worldOf.values());
    for (const key of this.worldUse.keys()) {
      if (held <= this.budgetBytes) {
        break;
      }
      if (standing.has(key) || !this.worldBytes.has(key)) {
        continue;
      }
      held -= this.worldBytes.get(key) ?? 0;
      this.twins.delete(key);
      this.worldBytes.delete(key);
      this.worldUse.delete(key);
      this.evictions.worlds++;
    }
  }

  private async rebuild(tenantId: string, episodeId: string): Promise<Episode> {
    const descriptor = await this.store.findEpisode(tenantId, episodeId);
    if (!descriptor) {
      throw new EpisodeNotFoundError(episodeId);
    }
    // Known before the world is built, so the world is not dropped while this episode loads on it.
    this.worldOf.set(episodeId, this.worldKeyOf(descriptor));
    const twin = await this.twinFor(descriptor);
    const state = new EpisodeState(twin.world);
    for (const event of await this.store.events(tenantId, episodeId)) {
      state.apply(event);
    }
    return new Episode(descriptor, twin, state, this.store, this.observer);
  }

  private worldKeyOf(descriptor: EpisodeDescriptor): string {
    return `${descriptor.tenantId}:${worldKey(descriptor.stackVersion, descriptor.seed, descriptor.sizes)}`;
  }

  private twinFor(descriptor: EpisodeDescriptor): Promise<StackTwin> {
    const key = this.worldKeyOf(descriptor);
    this.worldUse.delete(key);
    this.worldUse.set(key, this.clock());
    let twin = this.twins.get(key);
    if (!twin) {
      const building = this.stacks.load(descriptor.tenantId, descriptor.stackVersion).then((stack) => {
        if (!stack) {
          throw new StackVersionNotFoundError(descriptor.stackVersion);
        }
        return StackTwin.build(stack.model, stack.version, descriptor.seed, descriptor.sizes, this.packs);
      });
      twin = building;
      this.twins.set(key, building);
      building.then(
        (built) => {
          if (this.twins.get(key) === building) {
            this.worldBytes.set(key, worldHeapBytes(built.world));
          }
        },
        () => {
          this.twins.delete(key);
          this.worldUse.delete(key);
        },
      );
    }
    return twin;
  }
}
