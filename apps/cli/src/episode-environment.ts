import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { DataSource } from 'typeorm';

import type { ServiceLog } from '@libs/embedded-services';
import { AgentForInstance } from '@libs/episode-runs';
import { PlayedEpisode, ScenarioOfBundle, withEpisodeHost } from '@libs/episode-host';
import type { StackModel } from '@libs/stack-ingestion';

export type { PlayedEpisode } from '@libs/episode-host';

export interface EpisodeEnvironment {
  /** Plays one episode of a scenario with an agent, grades it, and stores both (the transcript in a file). */
  play(scenario: ScenarioOfBundle, seed: number, agent: AgentForInstance): Promise<PlayedEpisode>;
  transcripts: string;
  /** What a rollout's own worker and store use: the database, Temporal and the tenant the episodes run in. */
  services: {
    dataSource: DataSource;
    temporal: Client;
    connection: NativeConnection;
    namespace: string;
    tenantId: string;
  };
}

/**
 * Everything episodes of one bundle need, for one command (the episode host of that bundle alone): stopped when
 * `work` ends, however it ends.
 */
export const withEpisodeEnvironment = <T>(
  bundle: { path: string; model: StackModel; version: string },
  log: ServiceLog,
  work: (environment: EpisodeEnvironment) => Promise<T>,
  options: { concurrency?: number } = {},
): Promise<T> =>
  withEpisodeHost(
    [{ id: 'bundle', ...bundle }],
    log,
    (host) => {
      const environment = host.environments.get('bundle')!;
      return work({
        play: (scenario, seed, agent) => host.play(environment, scenario, seed, agent),
        transcripts: host.transcripts,
        services: {
          dataSource: host.dataSource,
          temporal: host.temporal.client,
          connection: host.temporal.connection,
          namespace: host.temporal.namespace,
          tenantId: host.config.MIRROR_TENANT,
        },
      });
    },
    options,
  );
