import { randomUUID } from 'node:crypto';

import {
  ControlPlaneCaller,
  EnvironmentSummary,
  EpisodeAccessError,
  EpisodeLifecyclePort,
  EpisodeRequestError,
  EpisodeStart,
  EpisodeStatus,
  ToolCall,
  ToolCallResult,
  ToolDefinition,
  ToolObservation,
} from '@libs/agent-tools';

/**
 * An in-memory stand-in for the live-episode registry, for the protocol adapters' tests only: one environment whose
 * one task is to refund an order, tokens checked as the registry must check them, and the reward from what the twin
 * state says was done (never from what the agent says). The real registry is tested against the same adapters by the
 * e2e test once `mirror up` serves both.
 */
export class InMemoryEpisodes implements EpisodeLifecyclePort {
  readonly calls: { episodeId: string; names: string[] }[] = [];
  /** Who each start named as its starter, in order (none: the protocol knew nobody). */
  readonly starters: (ControlPlaneCaller | undefined)[] = [];
  private readonly episodes = new Map<string, LiveEpisode>();

  constructor(private readonly maxLive = 8) {}

  environments(): EnvironmentSummary[] {
    return [
      {
        id: 'shop',
        title: 'A shop with orders',
        stackVersion: 'v1',
        scenarios: [
          { id: 'refund', title: 'Refund a damaged order' },
          { id: 'lookup', title: 'Look an order up' },
        ],
        splits: { train: { firstSeed: 1, lastSeed: 3 }, test: { firstSeed: 100, lastSeed: 101 } },
      },
    ];
  }

  start(request: {
    environment: string;
    task: string;
    maxSteps?: number;
    startedBy?: ControlPlaneCaller;
  }): Promise<EpisodeStart> {
    this.starters.push(request.startedBy);
    return settle(() => {
      const environment = this.environments().find((candidate) => candidate.id === request.environment);
      if (environment === undefined) {
        throw new EpisodeRequestError('environment_not_found', 404, `no environment '${request.environment}'`);
      }
      const [scenario, seedText] = request.task.split('@');
      const seed = Number(seedText);
      if (!environment.scenarios.some((candidate) => candidate.id === scenario) || !Number.isInteger(seed)) {
        throw new EpisodeRequestError('task_not_found', 404, `no task '${request.task}' in '${request.environment}'`);
      }
      const live = [...this.episodes.values()].filter((episode) => episode.status === 'running').length;
      if (live >= this.maxLive) {
        throw new EpisodeRequestError('capacity_exhausted', 429, `${live} live episodes: none left`, 7);
      }
      const episode: LiveEpisode = {
        id: randomUUID(),
        token: randomUUID(),
        task: request.task,
        maxSteps: request.maxSteps ?? 20,
        steps: 0,
        status: 'running',
        refunded: [],
        orderId: `ord-${seed}`,
      };
      this.episodes.set(episode.id, episode);
      return {
        episodeId: episode.id,
        token: episode.token,
        environment: environment.id,
        task: request.task,
        prompt: { system: 'You serve the shop.', user: `Refund order ${episode.orderId}.`, policy: null },
        tools: TOOLS,
        limits: { maxSteps: episode.maxSteps, ttlSeconds: 900, horizonBusinessDays: 5 },
      };
    });
  }

  tools(episodeId: string, token: string): Promise<ToolDefinition[]> {
    return settle(() => {
      this.open(episodeId, token);
      return TOOLS;
    });
  }

  status(episodeId: string, token: string): Promise<EpisodeStatus> {
    return settle(() => {
      return this.statusOf(this.open(episodeId, token));
    });
  }

  finish(episodeId: string, token: string): Promise<EpisodeStatus> {
    return settle(() => {
      const episode = this.open(episodeId, token);
      if (episode.status === 'running') {
        this.end(episode);
      }
      return this.statusOf(episode);
    });
  }

  call(episodeId: string, token: string, calls: ToolCall[]): Promise<ToolCallResult> {
    return settle(() => {
      const episode = this.open(episodeId, token);
      if (episode.status !== 'running') {
        throw new EpisodeAccessError('episode_ended', 409, `episode ${episodeId} has ended`);
      }
      this.calls.push({ episodeId, names: calls.map((call) => call.name) });
      const observations = calls.map((call) => this.perform(episode, call));
      episode.steps += 1;
      // Read after the calls: finish_episode changes it.
      const finished = this.hasEnded(episode);
      const truncated = !finished && episode.steps >= episode.maxSteps;
      if (truncated) {
        this.end(episode);
      }
      return {
        observations,
        terminated: finished,
        truncated,
        ...(finished || truncated ? { reward: episode.reward } : {}),
      };
    });
  }

  /** How many episodes were ever started: a refused request must not have started one. */
  get started(): number {
    return this.episodes.size;
  }

  /** Deletes an episode as `DELETE /v1/episodes/{id}` would (its id answers 410 afterwards). */
  delete(episodeId: string): void {
    const episode = this.episodes.get(episodeId);
    if (episode !== undefined) {
      episode.status = 'deleted';
    }
  }

  private open(episodeId: string, token: string): LiveEpisode {
    const episode = this.episodes.get(episodeId);
    if (episode === undefined) {
      throw new EpisodeAccessError('episode_not_found', 404, `no episode ${episodeId}`);
    }
    if (episode.status === 'deleted') {
      throw new EpisodeAccessError('episode_deleted', 410, `episode ${episodeId} was deleted`);
    }
    if (episode.token !== token) {
      throw new EpisodeAccessError('token_invalid', 403, `this token does not open episode ${episodeId}`);
    }
    return episode;
  }

  private perform(episode: LiveEpisode, call: ToolCall): ToolObservation {
    const answer = (isError: boolean, structured: Record<string, unknown>): ToolObservation => ({
      callId: call.id,
      name: call.name,
      isError,
      structured,
      text: JSON.stringify(structured),
    });
    if ('unparsable' in call.arguments) {
      return answer(true, { problems: ['/: arguments are not JSON'] });
    }
    const args = call.arguments;
    switch (call.name) {
      case 'orders_get_order':
        return args.order_id === episode.orderId
          ? answer(false, { id: episode.orderId, total: 40, refunded: episode.refunded.includes(episode.orderId) })
          : answer(true, { status: 404, body: { message: `no order ${String(args.order_id)}` } });
      case 'orders_refund_order':
        if (typeof args.amount !== 'number') {
          return answer(true, { problems: ['/amount: must be number'] });
        }
        if (args.order_id !== episode.orderId) {
          return answer(true, { status: 404, body: { message: `no order ${String(args.order_id)}` } });
        }
        episode.refunded.push(String(args.order_id));
        return answer(false, { id: episode.orderId, refunded: args.amount });
      case 'wait_for_events':
        return answer(false, { events: [] });
      case 'finish_episode':
        this.end(episode);
        return answer(false, { finished: true });
      default:
        return answer(true, { problems: [`unknown tool '${call.name}'`] });
    }
  }

  private hasEnded(episode: LiveEpisode): boolean {
    return episode.status === 'ended';
  }

  private end(episode: LiveEpisode): void {
    episode.status = 'ended';
    episode.reward = episode.refunded.includes(episode.orderId) ? 1 : 0;
  }

  private statusOf(episode: LiveEpisode): EpisodeStatus {
    return {
      episodeId: episode.id,
      status: episode.status === 'running' ? 'running' : 'ended',
      steps: episode.steps,
      businessTime: '2026-03-02T09:00:00Z',
      expiresAt: '2026-12-01T00:00:00Z',
      ...(episode.status === 'ended'
        ? {
            result: {
              reward: episode.reward ?? 0,
              passed: episode.reward === 1,
              status: 'graded',
              reason: episode.reward === 1 ? 'the order was refunded' : 'the order was not refunded',
            },
          }
        : {}),
    };
  }
}

/** The registry answers asynchronously; a throw becomes a rejection, as it would be across a real port. */
const settle = <T>(work: () => T): Promise<T> => Promise.resolve().then(work);

interface LiveEpisode {
  id: string;
  token: string;
  task: string;
  maxSteps: number;
  steps: number;
  status: 'running' | 'ended' | 'deleted';
  refunded: string[];
  orderId: string;
  reward?: number;
}

const closedWorld = { openWorldHint: false } as const;

const TOOLS: ToolDefinition[] = [
  {
    name: 'orders_get_order',
    description: 'Reads one order.',
    inputSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, ...closedWorld },
    target: {
      kind: 'operation',
      service: 'orders',
      operationId: 'getOrder',
      method: 'get',
      path: '/orders/{order_id}',
      arguments: [{ argument: 'order_id', in: 'path', name: 'order_id' }],
    },
  },
  {
    name: 'orders_refund_order',
    description: 'Refunds an order.',
    inputSchema: {
      type: 'object',
      properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
      required: ['order_id', 'amount'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, ...closedWorld },
    target: {
      kind: 'operation',
      service: 'orders',
      operationId: 'refundOrder',
      method: 'post',
      path: '/orders/{order_id}/refunds',
      contentType: 'application/json',
      arguments: [
        { argument: 'order_id', in: 'path', name: 'order_id' },
        { argument: 'amount', in: 'body-field', name: 'amount' },
      ],
    },
  },
  {
    name: 'wait_for_events',
    description: 'Lets business time pass until someone else acts.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, ...closedWorld },
    target: { kind: 'wait_for_events' },
  },
  {
    name: 'finish_episode',
    description: 'Ends the episode.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, ...closedWorld },
    target: { kind: 'finish_episode' },
  },
];
