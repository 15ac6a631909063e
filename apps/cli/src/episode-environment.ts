import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { DataSource } from 'typeorm';

import type { ServiceLog } from '@libs/embedded-services';
import { AgentForInstance } from '@libs/episode-runs';
import { PlayedEpisode, ScenarioOfBundle, withEpisodeHost } from '@libs/episode-host';
import { commandLineActor } from '@libs/evidence-trail';
import type { StackModel } from '@libs/stack-ingestion';
import type { EpisodeStarter } from '@libs/twin-engine';

export type { PlayedEpisode } from '@libs/episode-host';

export interface EpisodeEnvironment {
  /**
   * Plays one episode of a scenario with an agent, grades it, and stores both (the transcript in a file). Started by
   * the person at the command line, unless `startedBy` names someone else (a rollout).
   */
  play(
    scenario: ScenarioOfBundle,
    seed: number,
    agent: AgentForInstance,
    startedBy?: EpisodeStarter,
  ): Promise<PlayedEpisode>;
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
        play: (scenario, seed, agent, startedBy) => host.play(environment, scenario, seed, agent, startedBy),
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
    // Run here, by whoever runs the command: the evidence trail names them as the episodes' starter.
    { ...options, startedBy: { actor: commandLineActor(), actorKind: 'trainer' } },
  );
