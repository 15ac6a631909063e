import * as fs from 'node:fs';
import * as path from 'node:path';

import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';

import type { MirrorConfig } from '@libs/config';
import type { ServiceLog } from '@libs/embedded-services';
import { episodePlayer, trialResultOf } from '@libs/episode-host';
import { AgentForInstance, workflowIdOf, RunningEpisodes } from '@libs/episode-runs';
import { PlayTrial, scaledOutAgent, scaledOutAgentNames } from '@libs/episode-worker';
import { instanceKey, PostgresEpisodeStore, RepositoryStackSource, StackRepository } from '@libs/persistence';
import { parseTask } from '@libs/rollouts';
import type { Scenario } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-ingestion';
import { TwinEngine } from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';

export interface SharedGatewayTrialOptions {
  config: MirrorConfig;
  dataSource: DataSource;
  temporal: Client;
  /** The gateways every episode is played through (`MIRROR_GATEWAY_URL`). */
  gateways: string[];
  /** The queue this process's episode workflows run on (any worker of the same queue may run them). */
  episodeQueue: string;
  log: ServiceLog;
}

/** A trial no retry can play (an unknown stack version, scenario or agent): the rollout records it at once. */
const unplayable = (message: string): ApplicationFailure =>
  ApplicationFailure.create({ type: 'UNPLAYABLE_TRIAL', message, nonRetryable: true });

/** The agents a worker can give a trial by name: built-in ones and a scenario's oracle plan (no user modules here). */
const agentFor = (name: string, scenario: Scenario): AgentForInstance => {
  const agent = scaledOutAgent(name, scenario);
  if (!agent) {
    throw unplayable(
      `a scaled-out worker plays ${scaledOutAgentNames().join(', ')} (an oracle only of a scenario that has one), not "${name}" for ${scenario.id}`,
    );
  }
  return agent;
};

/**
 * Plays rollout trials of any stack version stored in the database through shared gateways: the agent runs here,
 * its twins live in the gateways (this process's engine only follows each episode's log, to read its clock and to
 * grade it), its workflow on any worker of the episode queue. A trial whose episode could not run or end (a gateway
 * or worker died under it) fails its attempt, and Temporal plays it again on a fresh episode of the same seed, the
 * same world and task, on whichever worker takes it: nothing half-played is recorded, nothing recorded is played twice.
 */
export const sharedGatewayTrials = async (options: SharedGatewayTrialOptions): Promise<PlayTrial> => {
  const { config, dataSource, temporal, gateways, episodeQueue, log } = options;
  const stacks = new RepositoryStackSource(new StackRepository(dataSource));
  const engine = new TwinEngine(new PostgresEpisodeStore(dataSource), stacks, builtInPacks);
  const transcripts = path.resolve(config.MIRROR_DATA_DIR, 'transcripts');
  fs.mkdirSync(transcripts, { recursive: true });
  const { play } = episodePlayer({ config, dataSource, signals: new RunningEpisodes(), log, transcripts });
  const key = await instanceKey(dataSource, config.MIRROR_INSTANCE_KEY);
  // By tenant and version: a version is its content's hash, but a tenant reads only the stacks it stored.
  const models = new Map<string, Promise<{ version: string; model: StackModel } | undefined>>();
  const modelOf = (tenantId: string, version: string) => {
    const key = `${tenantId}\n${version}`;
    if (!models.has(key)) {
      models.set(key, stacks.load(tenantId, version));
      models.get(key)!.catch(() => models.delete(key));
    }
    return models.get(key)!;
  };
  // The trial's tenant is its rollout's (the workflow input), never this process's MIRROR_TENANT.
  return async ({ tenantId, rolloutId, stackVersion, task, agent }) => {
    const stack = await modelOf(tenantId, stackVersion);
    if (!stack) {
      throw unplayable(`no stack version ${stackVersion.slice(0, 12)} is stored for tenant ${tenantId}`);
    }
    const parsed = parseTask(task);
    const scenario = stack.model.scenarios.find((s) => s.scenario.id === parsed?.scenario);
    if (!parsed || !scenario) {
      throw unplayable(`task ${task} names no scenario of stack version ${stackVersion.slice(0, 12)}`);
    }
    const played = await play(
      {
        bundle: { model: stack.model, version: stack.version },
        context: {
          engine,
          temporal,
          gatewayUrl: gateways[0],
          gateways,
          tenantId,
          stackVersion: stack.version,
          model: stack.model,
          taskQueue: episodeQueue,
          instanceKey: key,
        },
      },
      scenario,
      parsed.seed,
      agentFor(agent, scenario.scenario),
      { actor: `rollout:${rolloutId}`, actorKind: 'system', rolloutId },
    );
    if (played.status === 'infrastructure_error') {
      // Mirror's failure, not the agent's: this attempt fails and the trial is played again from its start. Its
      // episode is ended (judged as cancelled, never recorded as the trial) rather than left open to its horizon.
      if (played.episodeId) {
        await temporal.workflow
          .getHandle(workflowIdOf(played.episodeId))
          .cancel()
          .catch(() => undefined);
      }
      throw new Error(played.reason);
    }
    return trialResultOf(played);
  };
};
