import {
  EpisodeDescriptor,
  EpisodeNotInTenantError,
  EpisodeStore,
  EventRange,
  EventSequenceConflictError,
  FaultSettings,
  ForkDescriptor,
  inRange,
  LoggedEvent,
} from './episode-events';
import { parseExact, stringifyExact } from './exact-integers';

/**
 * Keeps episodes in process memory: for in-process twins (`setupServer` in a user's own tests) where nothing has to
 * survive the process, and for unit tests of the engine. Production uses the PostgreSQL store.
 */
export class InMemoryEpisodeStore extends EpisodeStore {
  private readonly descriptors = new Map<string, EpisodeDescriptor>();
  private readonly logs = new Map<string, LoggedEvent[]>();

  createEpisode(episode: EpisodeDescriptor): Promise<void> {
    this.descriptors.set(episode.id, structuredClone(episode));
    this.logs.set(episode.id, []);
    return Promise.resolve();
  }

  /** The descriptor when the tenant owns the episode: what every method reaches an episode through. */
  private owned(tenantId: string, episodeId: string): EpisodeDescriptor | undefined {
    const found = this.descriptors.get(episodeId);
    return found?.tenantId === tenantId ? found : undefined;
  }

  findEpisode(tenantId: string, episodeId: string): Promise<EpisodeDescriptor | undefined> {
    const found = this.owned(tenantId, episodeId);
    return Promise.resolve(found ? structuredClone(found) : undefined);
  }

  append(tenantId: string, episodeId: string, events: LoggedEvent[]): Promise<void> {
    const log = this.owned(tenantId, episodeId) && this.logs.get(episodeId);
    if (!log) {
      return Promise.reject(new EpisodeNotInTenantError(tenantId, episodeId));
    }
    const last = log.length === 0 ? 0 : log[log.length - 1].seq;
    const taken = events.find((event) => event.seq <= last);
    if (taken) {
      return Promise.reject(new EventSequenceConflictError(episodeId, taken.seq));
    }
    // Events and the records in them are immutable once made (the engine relies on it), so the log keeps them as
    // given; reads hand out copies.
    log.push(...events);
    return Promise.resolve();
  }

  forkEpisode(episode: ForkDescriptor): Promise<void> {
    if (!this.owned(episode.tenantId, episode.forkedFrom.episodeId)) {
      return Promise.reject(new EpisodeNotInTenantError(episode.tenantId, episode.forkedFrom.episodeId));
    }
    const source = this.logs.get(episode.forkedFrom.episodeId) ?? [];
    this.descriptors.set(episode.id, structuredClone(episode));
    this.logs.set(
      episode.id,
      source.filter((e) => e.seq <= episode.forkedFrom.seq),
    );
    return Promise.resolve();
  }

  events(tenantId: string, episodeId: string, range?: EventRange): Promise<LoggedEvent[]> {
    const log = (this.owned(tenantId, episodeId) && this.logs.get(episodeId)) || [];
    // Copies as the PostgreSQL store gives them back (through JSON), which keeps integers beyond 2^53 boxed where
    // structuredClone would make their boxes empty objects.
    return Promise.resolve(
      parseExact(stringifyExact(range ? log.filter((e) => inRange(e.seq, range)) : log)) as LoggedEvent[],
    );
  }

  setFaults(tenantId: string, episodeId: string, faults: FaultSettings | undefined): Promise<void> {
    const descriptor = this.owned(tenantId, episodeId);
    if (descriptor) {
      descriptor.faults = faults;
    }
    return Promise.resolve();
  }

  /** An in-memory store keeps no evidence trail: nothing to record. */
  recordCredentialIssued(): Promise<void> {
    return Promise.resolve();
  }
}
