import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { DataSource } from 'typeorm';

import { ACCESS_MODE, AccessGuard, AccessMode } from '@libs/access';
import { MirrorConfig, MirrorSettings, resolveOperatorKey } from '@libs/config';
import { AgentToolkit, IdempotentRequests, LiveEpisodeRegistry } from '@libs/live-episodes';
import { LiveEpisodeRepository } from '@libs/persistence';
import { MetricsAccess, MetricsController, RequestTelemetryInterceptor } from '@libs/telemetry';

import type { EpisodeProtocolMount } from './episode-protocols';
import { EpisodesController } from './episodes.controller';
import { RolloutsController } from './rollouts.controller';
import { AGENT_TOOLKIT, EPISODE_LIFECYCLE_PORT } from './injection-tokens';

/** What the episode API serves: the registry of the process's live episodes and the tool formats it speaks. */
export interface EpisodeApiOptions {
  registry: LiveEpisodeRegistry;
  toolkit: AgentToolkit;
  /** The protocol adapters mounted beside it, each given the app and the registry as the lifecycle port. */
  protocols: readonly EpisodeProtocolMount[];
  /** The process's settings. */
  config: MirrorConfig;
  /**
   * Who may use the control-plane routes (start episodes, read environments and rollouts): API keys, or `mirror up`'s
   * one local user. Episode routes take the episode's own token either way.
   */
  access: AccessMode;
  /** Modules served beside the episode API (`mirror up`'s review routes), each bringing its own controllers. */
  modules?: readonly DynamicModule[];
}

/** The episode API and the protocol adapters over the same registry, and the rollouts stored beside them. */
@Module({})
export class EpisodesModule {
  static forRoot(options: EpisodeApiOptions, dataSource: DataSource): DynamicModule {
    return {
      module: EpisodesModule,
      imports: [...(options.modules ?? [])],
      controllers: [EpisodesController, RolloutsController, MetricsController],
      providers: [
        { provide: LiveEpisodeRegistry, useValue: options.registry },
        { provide: DataSource, useValue: dataSource },
        { provide: MirrorSettings, useValue: options.config },
        { provide: EPISODE_LIFECYCLE_PORT, useValue: options.registry },
        { provide: AGENT_TOOLKIT, useValue: options.toolkit },
        // Each request in its episode's trace (an agent's `traceparent` its parent), its ids on every log line.
        { provide: APP_INTERCEPTOR, useClass: RequestTelemetryInterceptor },
        // Agents call this API: its metrics (counts over every episode) are the operator's only.
        { provide: MetricsAccess, useValue: { key: resolveOperatorKey(options.config) } },
        { provide: ACCESS_MODE, useValue: options.access },
        { provide: APP_GUARD, useClass: AccessGuard },
        { provide: IdempotentRequests, useValue: new IdempotentRequests(new LiveEpisodeRepository(dataSource)) },
      ],
      exports: [EPISODE_LIFECYCLE_PORT, AGENT_TOOLKIT],
    };
  }
}
