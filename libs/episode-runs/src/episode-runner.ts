import { Client, WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';

import type { AgentSession, ReferenceAgent } from '@libs/reference-agents';
import { instantiate, Scenario, worldSeedOf } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { TwinClient } from '@libs/twin-client';
import { TwinEngine } from '@libs/twin-engine';
import {
  EpisodeOutcome,
  EpisodeServices,
  EpisodeWorkflowInput,
  episodeWorkflowNames,
  SignalledEvent,
  taskQueues,
  WaitRequest,
  WaitResult,
} from '@libs/workflow-contracts';
import { slackUserId } from '@twins/slack';

import { agentEndpoints } from './agent-endpoints';
import { guardSession, runAgent } from './session-conduct';

export interface RunnerContext {
  engine: TwinEngine;
  temporal: Client;
  gatewayUrl: string;
  tenantId: string;
  stackVersion: string;
  model: StackModel;
  taskQueue?: string;
  /** The installation's instance key: task instances and worlds are drawn under it, never from the seed alone. */
  instanceKey: string;
  /** Where the agent's own prose (policy document) is read from: the bundle's files. */
  readFile?: (file: string) => string | undefined;
}

/** Routes twin events to the workflows of the episodes this process runs. */
export class WorkflowSignals {
  private readonly running = new Map<string, WorkflowHandle>();

  register(episodeId: string, handle: WorkflowHandle): void {
    this.running.set(episodeId, handle);
  }

  forget(episodeId: string): void {
    this.running.delete(episodeId);
  }

  readonly listener = async (episodeId: string, events: SignalledEvent[]): Promise<void> => {
    const handle = this.running.get(episodeId);
    if (handle) {
      await handle.signal(episodeWorkflowNames.domainEvents, events).catch(() => undefined);
    }
  };
}

const serviceFor = (model: StackModel, pack: string): string => {
  const service = model.services.find((s) => s.pack === pack);
  if (!service) {
    throw new Error(`the stack has no ${pack} service; scenarios need the slack, email and procurement packs`);
  }
  return service.name;
};

export const workflowIdOf = (episodeId: string): string => `episode-${episodeId}`;

/**
 * The episode could not run or end for a reason outside the agent (Temporal or the database unreachable): reported
 * beside the others, never graded as the agent's failure. `episodeId` when the twins' episode was created.
 */
export class EpisodeInfrastructureError extends Error {
  constructor(
    readonly episodeId: string | undefined,
    cause: unknown,
  ) {
    super(`the episode could not run: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

const orInfrastructureError = async <T>(episodeId: string | undefined, work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    throw error instanceof EpisodeInfrastructureError ? error : new EpisodeInfrastructureError(episodeId, error);
  }
};

/**
 * Starts an episode of a scenario: the episode on the twins and its workflow on Temporal, registered for signals.
 * Returns the workflow handle and the session an agent acts through.
 */
export const startEpisode = async (
  context: RunnerContext,
  signals: WorkflowSignals,
  scenario: Scenario,
  seed: number,
  options: { continueAsNewAfterEvents?: number } = {},
) => {
  const worldSeed = worldSeedOf(scenario, seed, context.instanceKey);
  const episode = await orInfrastructureError(undefined, () =>
    context.engine.createEpisode({
      tenantId: context.tenantId,
      stackVersion: context.stackVersion,
      seed: worldSeed,
      sizes: { recordsPerResource: 5, ...(scenario.world.company ? { company: scenario.world.company } : {}) },
      scenario: { id: scenario.id, seed },
    }),
  );
  const company = episode.twin.world.company as Company;
  const instance = instantiate(scenario, seed, company, context.instanceKey);
  const services: EpisodeServices = {
    gatewayUrl: context.gatewayUrl,
    email: serviceFor(context.model, 'email'),
    slack: serviceFor(context.model, 'slack'),
    erp: serviceFor(context.model, 'procurement'),
  };
  const identity = {
    employeeId: company.agent.id,
    name: company.agent.name,
    email: company.agent.email,
    slackUser: slackUserId(worldSeed, company.agent),
  };
  const input: EpisodeWorkflowInput = {
    episodeId: episode.id,
    instance,
    agent: { employeeId: identity.employeeId, email: identity.email, slackUser: identity.slackUser },
    services,
    startAt: episode.now(),
    ...options,
  };
  const handle = await orInfrastructureError(episode.id, () =>
    context.temporal.workflow.start(episodeWorkflowNames.workflow, {
      taskQueue: context.taskQueue ?? taskQueues.episodes,
      workflowId: workflowIdOf(episode.id),
      args: [input],
    }),
  );
  signals.register(episode.id, handle);
  // The agent acts in a world already set up (a budget frozen, the clock at the start), never racing the setup.
  await orInfrastructureError(episode.id, () =>
    handle.executeUpdate<string, []>(episodeWorkflowNames.ready, { args: [] }),
  );
  const twin = new TwinClient(services, episode.id);
  // The agent's own tokens, issued by the episode (the runner holds the engine); no one can compute them.
  const tokenOf = (service: string, principal: string): string => {
    const token = episode.tokenFor(service, principal);
    if (!token) {
      throw new Error(`the ${service} service issues no tokens`);
    }
    return token;
  };
  const baseUrls = twin.baseUrls();
  const tokens = {
    mail: tokenOf(services.email, identity.email),
    slack: tokenOf(services.slack, identity.employeeId),
    erp: tokenOf(services.erp, identity.employeeId),
  };
  let outcome: EpisodeOutcome | undefined;
  /** An update to a workflow that already ended (the horizon passed while the agent was away): undefined. */
  const unlessEnded = async <T>(update: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await update();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        return undefined;
      }
      throw error;
    }
  };
  const raw: AgentSession = {
    brief: {
      goal: instance.brief.goal,
      context: instance.brief.context,
      ...(instance.brief.policyFile && context.readFile?.(instance.brief.policyFile)
        ? { policy: context.readFile(instance.brief.policyFile) }
        : {}),
      tools: instance.brief.tools,
    },
    identity,
    endpoints: {
      mail: { baseUrl: baseUrls.mail, token: tokens.mail },
      slack: { baseUrl: baseUrls.slack, token: tokens.slack },
      erp: { baseUrl: baseUrls.erp, token: tokens.erp },
      // By the stack's service names, which win over the product names above when a stack uses one of them.
      ...agentEndpoints(episode, context.gatewayUrl, instance.brief.tools),
    },
    mail: (path, init) => twin.mail(tokens.mail, path, init),
    slack: (method, args) => twin.slack(tokens.slack, method, args),
    erp: (path, init) => twin.erp(tokens.erp, path, init),
    now: () => episode.now(),
    wait: async (businessDays?: number) => {
      const request: WaitRequest = businessDays === undefined ? {} : { businessDays };
      const waited = outcome
        ? undefined
        : await unlessEnded(() =>
            handle.executeUpdate<WaitResult, [WaitRequest]>(episodeWorkflowNames.wait, { args: [request] }),
          );
      if (!waited) {
        outcome ??= (await handle.result()) as EpisodeOutcome;
      }
      return waited ?? { now: episode.now(), happened: [], finished: true };
    },
    finish: async () => {
      if (!outcome) {
        const finished = await unlessEnded(() =>
          handle.executeUpdate<EpisodeOutcome, []>(episodeWorkflowNames.finish, { args: [] }),
        );
        outcome = finished ?? ((await handle.result()) as EpisodeOutcome);
      }
      return outcome;
    },
  };
  const { session, conduct } = guardSession(raw, { maxWaitBusinessDays: instance.horizon.businessDays + 1 });
  return { episode, handle, session, conduct, instance, company, finished: () => outcome };
};

/**
 * One episode of a scenario with an agent: the episode on the twins, its workflow on Temporal, and the agent acting
 * through the twins until it finishes (or the workflow ends it). Returns the workflow's outcome.
 */
export const runEpisode = async (
  context: RunnerContext,
  signals: WorkflowSignals,
  scenario: Scenario,
  seed: number,
  agent: ReferenceAgent,
  options: { continueAsNewAfterEvents?: number; stopGraceMs?: number } = {},
): Promise<EpisodeOutcome> => {
  const { episode, handle, session, conduct, finished } = await startEpisode(context, signals, scenario, seed, options);
  try {
    const workflowEnded = handle.result().then(
      () => true,
      () => false,
    );
    const crash = await runAgent(agent, session, conduct, workflowEnded, options.stopGraceMs ?? 30_000);
    if (conduct.infrastructureFaults.length > 0) {
      // Mirror failed the agent (the twins unreachable, Temporal refusing an update): not the agent's doing.
      throw new EpisodeInfrastructureError(episode.id, conduct.infrastructureFaults.join('; '));
    }
    const ended = await orInfrastructureError(episode.id, async () => finished() ?? (await session.finish()));
    // An agent that crashes or calls after the end has failed its task, not the infrastructure. Its status stays the
    // workflow's: an agent that ran past the horizon and then crashed still ran past it.
    const faults = [
      ...(crash !== undefined ? [`the agent stopped with an error: ${crash}`] : []),
      ...conduct.agentFaults.slice(0, 3),
      ...(conduct.agentFaults.length > 3 ? [`${conduct.agentFaults.length - 3} more calls after the end`] : []),
    ];
    if (faults.length === 0) {
      return ended;
    }
    const agentError = faults.join('; ');
    return { ...ended, reason: `${agentError}; ${ended.reason}`, agentError };
  } finally {
    signals.forget(episode.id);
  }
};
