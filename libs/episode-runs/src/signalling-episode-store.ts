import {
  EpisodeDescriptor,
  EpisodeStore,
  EventRange,
  FaultSettings,
  ForkDescriptor,
  LoggedEvent,
} from '@libs/twin-engine';
import type { SignalledEvent } from '@libs/workflow-contracts';

export type EventListener = (episodeId: string, events: SignalledEvent[]) => Promise<void>;

/**
 * An event store that tells a listener (the episode's workflow, through a Temporal signal) about every domain event
 * once it is durable, and before the twin answers the request that caused it: an agent that waits right after
 * sending a mail can rely on the workflow knowing about the mail.
 */
export class SignallingEpisodeStore extends EpisodeStore {
  constructor(
    private readonly inner: EpisodeStore,
    private readonly listener: EventListener,
  ) {
    super();
  }

  async append(episodeId: string, events: LoggedEvent[]): Promise<void> {
    await this.inner.append(episodeId, events);
    const domain = events.flatMap((entry) =>
      entry.event.type === 'domain'
        ? [
            {
              seq: entry.seq,
              at: entry.at,
              ...(entry.actor !== undefined ? { actor: entry.actor } : {}),
              name: entry.event.name,
              service: entry.event.service,
              data: entry.event.data,
            },
          ]
        : [],
    );
    if (domain.length > 0) {
      await this.listener(episodeId, domain);
    }
  }

  createEpisode(episode: EpisodeDescriptor): Promise<void> {
    return this.inner.createEpisode(episode);
  }

  findEpisode(episodeId: string): Promise<EpisodeDescriptor | undefined> {
    return this.inner.findEpisode(episodeId);
  }

  /** A fork's copied events are its source's, told to that source's workflow already: nothing to signal. */
  forkEpisode(episode: ForkDescriptor): Promise<void> {
    return this.inner.forkEpisode(episode);
  }

  events(episodeId: string, range?: EventRange): Promise<LoggedEvent[]> {
    return this.inner.events(episodeId, range);
  }

  setFaults(episodeId: string, faults: FaultSettings | undefined): Promise<void> {
    return this.inner.setFaults(episodeId, faults);
  }
}
