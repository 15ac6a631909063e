import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AgentToolkit, IdempotentRequests, LiveEpisodeRegistry } from '@libs/live-episodes';
import { LiveEpisodeRepository } from '@libs/persistence';

import type { EpisodeProtocolMount } from './episode-protocols';
import { EpisodesController } from './episodes.controller';
import { AGENT_TOOLKIT, EPISODE_LIFECYCLE_PORT } from './injection-tokens';

/** What the episode API serves: the registry of the process's live episodes and the tool formats it speaks. */
export interface EpisodeApiOptions {
  registry: LiveEpisodeRegistry;
  toolkit: AgentToolkit;
  /** The protocol adapters mounted beside it, each given the app and the registry as the lifecycle port. */
  protocols: readonly EpisodeProtocolMount[];
}

/** The episode API and the protocol adapters over the same registry. */
@Module({})
export class EpisodesModule {
  static forRoot(options: EpisodeApiOptions, dataSource: DataSource): DynamicModule {
    return {
      module: EpisodesModule,
      controllers: [EpisodesController],
      providers: [
        { provide: LiveEpisodeRegistry, useValue: options.registry },
        { provide: EPISODE_LIFECYCLE_PORT, useValue: options.registry },
        { provide: AGENT_TOOLKIT, useValue: options.toolkit },
        { provide: IdempotentRequests, useValue: new IdempotentRequests(new LiveEpisodeRepository(dataSource)) },
      ],
      exports: [EPISODE_LIFECYCLE_PORT, AGENT_TOOLKIT],
    };
  }
}
