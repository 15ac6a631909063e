import { Client, WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';

import { EpisodeRecords, evaluatePredicates, PredicateSubject } from '@libs/outcomes';
import type { AgentSession, PlanInsight, ReferenceAgent } from '@libs/reference-agents';
import { purchaseBriefOf } from '@libs/reference-agents';
import { instantiate, Scenario, TaskInstance, worldSeedOf } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { boundedLabel, mirrorMetrics } from '@libs/telemetry';
import { episodeGateway, gatewayLostSince, TwinClient } from '@libs/twin-client';
import { domainEventsOf, Episode, EpisodeStarter, TwinEngine } from '@libs/twin-engine';
import {
  EpisodeOutcome,
  EpisodeWorkflowResult,
  EpisodeServices,
  EpisodeWorkflowInput,
  episodeWorkflowNames,
  taskQueues,
  transcriptOf,
  WaitRequest,
  WaitResult,
} from '@libs/workflow-contracts';
import { slackUserId } from '@twins/slack';

import { agentEndpoints } from './agent-endpoints';
import { guardSession, runAgent } from './session-conduct';
import { settledUpdate } from './settled-update';

export interface RunnerContext {
  engine: TwinEngine;
  temporal: Client;
  gatewayUrl: string;
  /**
   * Every gateway of a scaled-out deployment, when the twins are served by other processes: an episode is reached
   * through one of them (the same for every process) and moves to the next when it is gone. `gatewayUrl` is unused
   * then. With it, `engine` only follows the log: this process's copy of an episode is caught up from the event log
   * after every call and update of its agent, so the clock and the records the runner reads are the gateway's.
   */
  gateways?: readonly string[];
  tenantId: string;
  stackVersion: string;
  model: StackModel;
  taskQueue?: string;
  /** The installation's instance key: task instances and worlds are drawn under it, never from the seed alone. */
  instanceKey: string;
  /** Where the agent's own prose (policy document) is read from: the bundle's files. */
  readFile?: (file: string) => string | undefined;
  /**
   * Who starts this context's episodes when a start names nobody (the person running `mirror run`), as the evidence
   * trail records it.
   */
  startedBy?: EpisodeStarter;
}

/**
 * The episodes this process is playing, each with what its run holds until it ends (a pin in memory, the lease's
 * renewal): released when the episode is forgotten. Twin events no longer travel as signals (the workflow reads the
 * log itself), so nothing is routed through here.
 */
export class RunningEpisodes {
  private readonly releases = new Map<string, () => void>();

  register(episodeId: string, release: () => void): void {
    this.releases.set(episodeId, release);
  }

  forget(episodeId: string): void {
    this.releases.get(episodeId)?.();
    this.releases.delete(episodeId);
  }
}

/** The stack's service of a pack, when it has one: any stack runs, a pack-less one too. */
const serviceFor = (model: StackModel, pack: string): { name: string } | undefined =>
  model.services.find((s) => s.pack === pack);

/** The stack's mail, Slack and procurement packs, by their service names, for the ones it has. */
const packServicesOf = (model: StackModel): Omit<EpisodeServices, 'gatewayUrl'> => {
  const [email, slack, erp] = (['email', 'slack', 'procurement'] as const).map((pack) => serviceFor(model, pack)?.name);
  return { ...(email ? { email } : {}), ...(slack ? { slack } : {}), ...(erp ? { erp } : {}) };
};

/** An agent, or one made for each instance (the oracle and its traps follow the instance's own plan). */
export type AgentForInstance =
  ReferenceAgent | { name: string; forInstance: (instance: TaskInstance, insight: PlanInsight) => ReferenceAgent };

/** The twins' records and log of a running episode, read in this process as the outcome judge reads them. */
const liveRecords = (engine: TwinEngine, tenantId: string, episodeId: string): EpisodeRecords => ({
  tables: async () => [...(await engine.episode(tenantId, episodeId)).twin.world.tables.keys()],
  records: async (table) => {
    const { state } = await engine.episode(tenantId, episodeId);
    return state.ids(table).flatMap((id) => state.get(table, id) ?? []) as Record<string, unknown>[];
  },
  log: () => engine.events(tenantId, episodeId),
  now: async () => (await engine.episode(tenantId, episodeId)).now(),
});

/** Whether a predicate holds in the episode now: what a reference plan waits on, never given to an agent under test. */
const planInsight = (context: RunnerContext, episodeId: string, subject: PredicateSubject): PlanInsight => ({
  holds: async (predicate) =>
    (await evaluatePredicates(liveRecords(context.engine, context.tenantId, episodeId), subject, { until: predicate }))
      .until.met,
});

export const workflowIdOf = (episodeId: string): string => `episode-${episodeId}`;

/**
 * When the episode's workflow hands over to a new run, when a caller (a test) wants it sooner than the defaults; and
 * the lease this process keeps on an episode whose agent it plays (`EpisodeWorkflowInput.leaseSeconds`).
 */
type HandOver = Pick<EpisodeWorkflowInput, 'continueAsNewAfterEvents' | 'continueAsNewAfterUpdates' | 'leaseSeconds'>;

/**
 * The lease of an episode whose agent runs in this process (`runEpisode`): a process killed mid-episode leaves it
 * open this long, not to its wall-clock limit. Renewed every third of it, so two renewals may be lost or late.
 */
export const episodeLeaseSeconds = 60;

/**
 * Brings this process's copy of an episode up to its log, when another process (a shared gateway) writes it: the
 * state is the log applied in order, wherever it is applied.
 */
export const followLog = async (engine: TwinEngine, episode: Episode): Promise<void> => {
  for (const entry of await engine.events(episode.descriptor.tenantId, episode.id, episode.state.seq)) {
    if (entry.seq === episode.state.seq + 1) {
      episode.state.apply(entry);
    }
  }
};

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
 * Starts an episode of a scenario: the episode on the twins and its workflow on Temporal, registered as running.
 * Returns the workflow handle and the session an agent acts through.
 */
export const startEpisode = async (
  context: RunnerContext,
  signals: RunningEpisodes,
  scenario: Scenario,
  seed: number,
  options: HandOver = {},
  startedBy: EpisodeStarter | undefined = context.startedBy,
) => {
  const worldSeed = worldSeedOf(scenario, seed, context.instanceKey);
  const episode = await orInfrastructureError(undefined, () =>
    context.engine.createEpisode({
      tenantId: context.tenantId,
      stackVersion: context.stackVersion,
      seed: worldSeed,
      sizes: { recordsPerResource: 5, ...(scenario.world.company ? { company: scenario.world.company } : {}) },
      scenario: { id: scenario.id, seed },
      ...(startedBy ? { startedBy } : {}),
    }),
  );
  const company = episode.twin.world.company as Company;
  const instance = instantiate(scenario, seed, company, context.instanceKey);
  const remote = context.gateways !== undefined && context.gateways.length > 0;
  const services: EpisodeServices = remote
    ? {
        gatewayUrl: await episodeGateway(episode.id, context.gateways!),
        gateways: [...context.gateways!],
        ...packServicesOf(context.model),
      }
    : { gatewayUrl: context.gatewayUrl, ...packServicesOf(context.model) };
  /** What the agent's calls and the workflow's updates changed, in this process's copy (with remote twins only). */
  const followed = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } finally {
      if (remote) {
        await followLog(context.engine, episode);
      }
    }
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
  // The session below keeps this `Episode` (its clock, its tokens) for the whole run: it must not be evicted and
  // rebuilt under it. Released when the episode is forgotten, as it ends.
  const unpin = context.engine.pin(episode.id);
  const handle = await orInfrastructureError(episode.id, () =>
    context.temporal.workflow.start(episodeWorkflowNames.workflow, {
      taskQueue: context.taskQueue ?? taskQueues.episodes,
      workflowId: workflowIdOf(episode.id),
      args: [input],
      // A `wait` runs the parties' steps inside its workflow task (local activities). With 64 episodes on two busy
      // cores the task's heartbeat came late and Temporal's default 10 s timed tasks out, redoing their steps.
      workflowTaskTimeout: '30 seconds',
    }),
  ).catch((error: unknown) => {
    unpin();
    throw error;
  });
  const renewing = renewLease(handle, options.leaseSeconds);
  signals.register(episode.id, () => {
    unpin();
    renewing.stop();
  });
  mirrorMetrics.episodesStarted.inc({ scenario: boundedLabel('scenario', scenario.id) });
  // The agent acts in a world already set up (a budget frozen, the clock at the start), never racing the setup.
  await orInfrastructureError(episode.id, () =>
    followed(() =>
      settledUpdate((updateId) => handle.executeUpdate<string, []>(episodeWorkflowNames.ready, { args: [], updateId })),
    ),
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
    mail: services.email === undefined ? undefined : tokenOf(services.email, identity.email),
    slack: services.slack === undefined ? undefined : tokenOf(services.slack, identity.employeeId),
    erp: services.erp === undefined ? undefined : tokenOf(services.erp, identity.employeeId),
  };
  /** The product endpoints (`mail`, `slack`, `erp`) of the packs the stack has. */
  const productEndpoints = Object.fromEntries(
    (['mail', 'slack', 'erp'] as const).flatMap((product) => {
      const baseUrl = baseUrls[product];
      const token = tokens[product];
      return baseUrl !== undefined && token !== undefined ? [[product, { baseUrl, token }]] : [];
    }),
  );
  const tokenFor = (product: 'mail' | 'slack' | 'erp'): string => {
    const token = tokens[product];
    if (token === undefined) {
      throw new Error(`the stack has no ${product} pack`);
    }
    return token;
  };
  let outcome: EpisodeOutcome | undefined;
  /** The workflow's outcome with the episode's story, told from its log (the workflow does not carry it). */
  const withStory = async (result: EpisodeWorkflowResult): Promise<EpisodeOutcome> => ({
    ...result,
    transcript: transcriptOf(
      domainEventsOf(await context.engine.events(context.tenantId, episode.id)),
      new Set([identity.employeeId, identity.email, identity.slackUser]),
    ),
  });
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
      ...productEndpoints,
      // By the stack's service names, which win over the product names above when a stack uses one of them.
      ...agentEndpoints(episode, services.gatewayUrl, instance.brief.tools),
    },
    // The built-in procurement demo agents work from the instance's data, not its prose (purchase-brief.ts).
    ...(purchaseBriefOf(instance) ? { purchase: purchaseBriefOf(instance) } : {}),
    mail: (path, init) => followed(() => twin.mail(tokenFor('mail'), path, init)),
    slack: (method, args) => followed(() => twin.slack(tokenFor('slack'), method, args)),
    erp: (path, init) => followed(() => twin.erp(tokenFor('erp'), path, init)),
    now: () => episode.now(),
    wait: async (businessDays?: number) => {
      const request: WaitRequest = businessDays === undefined ? {} : { businessDays };
      const waited = outcome
        ? undefined
        : await unlessEnded(() =>
            renewing.during(() =>
              followed(() =>
                settledUpdate((updateId) =>
                  handle.executeUpdate<WaitResult, [WaitRequest]>(episodeWorkflowNames.wait, {
                    args: [request],
                    updateId,
                  }),
                ),
              ),
            ),
          );
      if (!waited) {
        outcome ??= await withStory((await handle.result()) as EpisodeWorkflowResult);
      }
      return waited ?? { now: episode.now(), happened: [], finished: true };
    },
    finish: async () => {
      if (!outcome) {
        const finished = await unlessEnded(() =>
          renewing.during(() =>
            followed(() =>
              settledUpdate((updateId) =>
                handle.executeUpdate<EpisodeWorkflowResult, []>(episodeWorkflowNames.finish, { args: [], updateId }),
              ),
            ),
          ),
        );
        outcome = await withStory(finished ?? ((await handle.result()) as EpisodeWorkflowResult));
      }
      return outcome;
    },
  };
  const { session, conduct } = guardSession(raw, { maxWaitBusinessDays: instance.horizon.businessDays + 1 });
  return {
    episode,
    handle,
    session,
    conduct,
    instance,
    company,
    startAt: input.startAt,
    finished: () => outcome,
    gatewayUrl: services.gatewayUrl,
  };
};

/**
 * Keeps an episode's lease while this process lives: a `renewLease` signal every third of it, skipped when an update
 * (which renews it, and holds it while it runs) went out since or is in flight. Never during `finish`: a signal
 * arriving while the workflow's last task completes would make Temporal refuse that completion. `stop` when the
 * episode is forgotten.
 */
const renewLease = (handle: WorkflowHandle, leaseSeconds: number | undefined) => {
  const every = ((leaseSeconds ?? 0) * 1000) / 3;
  let contact = Date.now();
  let updating = 0;
  const timer =
    leaseSeconds === undefined
      ? undefined
      : setInterval(() => {
          if (updating === 0 && Date.now() - contact >= every) {
            contact = Date.now();
            handle.signal(episodeWorkflowNames.renewLease).catch(() => undefined);
          }
        }, every / 2);
  timer?.unref();
  return {
    /** Runs an update of the episode's workflow: the lease needs no signal meanwhile. */
    during: async <T>(update: () => Promise<T>): Promise<T> => {
      updating++;
      try {
        return await update();
      } finally {
        updating--;
        contact = Date.now();
      }
    },
    stop: () => clearInterval(timer),
  };
};

/**
 * One episode of a scenario with an agent: the episode on the twins, its workflow on Temporal, and the agent acting
 * through the twins until it finishes (or the workflow ends it). Returns the workflow's outcome.
 */
export const runEpisode = async (
  context: RunnerContext,
  signals: RunningEpisodes,
  scenario: Scenario,
  seed: number,
  agentFor: AgentForInstance,
  options: HandOver & { stopGraceMs?: number; startedBy?: EpisodeStarter } = {},
): Promise<EpisodeOutcome> => {
  const started = Date.now();
  const { stopGraceMs, startedBy, ...handOver } = options;
  const { episode, handle, session, conduct, finished, instance, startAt, gatewayUrl } = await startEpisode(
    context,
    signals,
    scenario,
    seed,
    { leaseSeconds: episodeLeaseSeconds, ...handOver },
    startedBy ?? context.startedBy,
  );
  try {
    const agent =
      'forInstance' in agentFor
        ? agentFor.forInstance(
            instance,
            planInsight(context, episode.id, {
              instance,
              agent: {
                employeeId: session.identity.employeeId,
                email: session.identity.email,
                slackUser: session.identity.slackUser,
              },
              startAt,
            }),
          )
        : agentFor;
    const workflowEnded = handle.result().then(
      () => true,
      () => false,
    );
    const crash = await runAgent(agent, session, conduct, workflowEnded, stopGraceMs ?? 30_000);
    if (context.gateways && context.gateways.length > 0 && (await gatewayLostSince(gatewayUrl, started))) {
      // Its twins moved to another gateway mid-episode: what the agent saw of them is not what an agent is graded on.
      conduct.infrastructureFaults.push(`the episode's gateway ${gatewayUrl} was lost while the agent played`);
    }
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
