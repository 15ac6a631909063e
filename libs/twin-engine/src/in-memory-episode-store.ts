import {
  EpisodeDescriptor,
  EpisodeStore,
  EventRange,
  FaultSettings,
  ForkDescriptor,
  inRange,
  LoggedEvent,
} from './episode-events';

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

  findEpisode(episodeId: string): Promise<EpisodeDescriptor | undefined> {
    const found = this.descriptors.get(episodeId);
    return Promise.resolve(found ? structuredClone(found) : undefined);
  }

  append(episodeId: string, events: LoggedEvent[]): Promise<void> {
    const log = this.logs.get(episodeId);
    if (!log) {
      return Promise.reject(new Error(`no episode ${episodeId}`));
    }
    // Events and the records in them are immutable once made (the engine relies on it), so the log keeps them as
    // given; reads hand out copies.
    log.push(...events);
    return Promise.resolve();
  }

  forkEpisode(episode: ForkDescriptor): Promise<void> {
    const source = this.logs.get(episode.forkedFrom.episodeId) ?? [];
    this.descriptors.set(episode.id, structuredClone(episode));
    this.logs.set(
      episode.id,
      source.filter((e) => e.seq <= episode.forkedFrom.seq),
    );
    return Promise.resolve();
  }

  events(episodeId: string, range?: EventRange): Promise<LoggedEvent[]> {
    const log = this.logs.get(episodeId) ?? [];
    return Promise.resolve(structuredClone(range ? log.filter((e) => inRange(e.seq, range)) : log));
  }

  setFaults(episodeId: string, faults: FaultSettings | undefined): Promise<void> {
    const descriptor = this.descriptors.get(episodeId);
    if (descriptor) {
      descriptor.faults = faults;
    }
    return Promise.resolve();
  }
}
