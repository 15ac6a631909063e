import { randomBytes } from 'node:crypto';

import {
  ControlPlaneCaller,
  EnvironmentSummary,
  EpisodeAccessError,
  EpisodeLifecyclePort,
  EpisodeStart,
  EpisodeStatus,
  ToolCallResult,
  ToolDefinition,
} from '@libs/agent-tools';

import { ProtocolRequestError } from '../protocol-errors';
import { mcpTool } from '../mcp/episode-mcp-server';
import { ResetTaskPicker } from './openenv-tasks';

/** The episode an OpenEnv session (a WebSocket, or the ids an HTTP caller sends back) acts on. */
export interface OpenEnvEpisode {
  episodeId: string;
  token: string;
}

/** OpenEnv's `StepResult` on the wire (`ResetResponse` / `StepResponse`, and the WebSocket `observation` data). */
export interface OpenEnvStepResult {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
  metadata: Record<string, unknown>;
}

/** OpenEnv's JSON-RPC 2.0 answer on its `/mcp` route. */
export type JsonRpcAnswer =
  | { jsonrpc: '2.0'; id: string | number | null; result: unknown }
  | { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data?: unknown } };

/**
 * The OpenEnv contract over the episode lifecycle port: reset starts a task of the environment, step performs one
 * OpenEnv MCP action (`call_tool` / `list_tools`), state reads the episode's status. Protocol-neutral: the HTTP routes
 * and the WebSocket session both call it. OPENENV.md records the contract and its sources.
 */
export class OpenEnvFacade {
  private readonly tasks = new ResetTaskPicker();
  /**
   * OpenEnv's HTTP MCP sessions (`openenv/session/create`): an unguessable handle that stands for one episode and its
   * token, as OpenEnv's own session ids stand for an environment instance. Its `MCPToolClient` sends only the handle
   * (in params, and as `?session_id=` when its WebSocket attaches), so the handle is as secret as the token it maps to.
   */
  private readonly sessions = new Map<string, OpenEnvEpisode>();

  constructor(
    private readonly port: EpisodeLifecyclePort,
    private readonly version = '0.1.0',
  ) {}

  environment(id: string): EnvironmentSummary {
    const environment = this.port.environments().find((candidate) => candidate.id === id);
    if (environment === undefined) {
      throw new ProtocolRequestError('environment_not_found', 404, `no environment '${id}' (GET /v1/environments)`);
    }
    return environment;
  }

  metadata(id: string): Record<string, unknown> {
    const environment = this.environment(id);
    return {
      name: environment.id,
      description: `${environment.title}: scenarios ${environment.scenarios.map((s) => s.id).join(', ')}`,
      version: environment.stackVersion,
      author: null,
      documentation_url: null,
      readme_content: null,
    };
  }

  schema(id: string): Record<string, unknown> {
    this.environment(id);
    return OPENENV_SCHEMAS;
  }

  /** Starts the task the reset names (see ResetTaskPicker); `mcpUrl` is where the same episode speaks MCP. */
  async reset(
    id: string,
    data: Record<string, unknown>,
    mcpUrl: (episodeId: string) => string,
    startedBy?: ControlPlaneCaller,
  ): Promise<{ episode: OpenEnvEpisode; result: OpenEnvStepResult }> {
    const environment = this.environment(id);
    const task = this.tasks.pick(environment, data);
    const maxSteps = data.max_steps;
    if (maxSteps !== undefined && (typeof maxSteps !== 'number' || !Number.isInteger(maxSteps) || maxSteps < 1)) {
      throw new ProtocolRequestError('invalid_reset', 422, "reset 'max_steps' must be a positive integer");
    }
    const start = await this.port.start({
      environment: environment.id,
      task,
      ...(maxSteps ? { maxSteps } : {}),
      ...(startedBy ? { startedBy } : {}),
    });
    return { episode: { episodeId: start.episodeId, token: start.token }, result: resetResult(start, mcpUrl) };
  }

  /** One OpenEnv action: `{type: 'call_tool', tool_name, arguments}` or `{type: 'list_tools'}` (OpenEnv's MCP actions). */
  async step(episode: OpenEnvEpisode, action: unknown): Promise<OpenEnvStepResult> {
    const parsed = parseAction(action);
    if (parsed.type === 'list_tools') {
      const tools = await this.port.tools(episode.episodeId, episode.token);
      return { observation: { tools: tools.map(openEnvTool) }, reward: null, done: false, metadata: {} };
    }
    const tools = await this.port.tools(episode.episodeId, episode.token);
    if (!tools.some((tool) => tool.name === parsed.toolName)) {
      return {
        observation: {
          tool_name: parsed.toolName,
          result: null,
          error: { error_type: 'tool_not_found', message: `unknown tool '${parsed.toolName}'` },
        },
        reward: null,
        done: false,
        metadata: { episode_id: episode.episodeId },
      };
    }
    const result = await this.port.call(episode.episodeId, episode.token, [
      { id: `openenv-${Date.now()}`, name: parsed.toolName, arguments: parsed.arguments },
    ]);
    return stepResult(episode.episodeId, parsed.toolName, result);
  }

  async state(episode: OpenEnvEpisode): Promise<Record<string, unknown>> {
    return openEnvState(await this.port.status(episode.episodeId, episode.token));
  }

  async close(episode: OpenEnvEpisode): Promise<Record<string, unknown>> {
    return openEnvState(await this.port.finish(episode.episodeId, episode.token));
  }

  /**
   * OpenEnv's `/mcp` JSON-RPC dialect: `tools/list` and `tools/call` on the session's episode, plus its session methods
   * (`openenv/session/create` starts a task as reset does, `openenv/session/close` finishes the episode).
   */
  async mcp(
    id: string,
    episode: OpenEnvEpisode | undefined,
    request: unknown,
    mcpUrl: (episodeId: string) => string,
    /** Who starts the episode a `openenv/session/create` starts (the caller the control plane admitted). */
    startedBy?: ControlPlaneCaller,
  ): Promise<{ answer: JsonRpcAnswer; created?: OpenEnvEpisode }> {
    this.environment(id);
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return { answer: rpcError(null, -32600, 'a JSON-RPC request object is expected') };
    }
    const { id: requestId = null, method, params = {} } = request as Record<string, unknown>;
    const rid = typeof requestId === 'string' || typeof requestId === 'number' ? requestId : null;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      return { answer: rpcError(rid, -32602, 'params must be an object') };
    }
    const args = params as Record<string, unknown>;
    if (method === 'openenv/session/create') {
      const { episode: created, result } = await this.reset(id, args, mcpUrl, startedBy);
      const sessionId = randomBytes(24).toString('base64url');
      this.sessions.set(sessionId, created);
      return {
        answer: { jsonrpc: '2.0', id: rid, result: { ...result.metadata, session_id: sessionId } },
        created,
      };
    }
    const sessionId = typeof args.session_id === 'string' ? args.session_id : undefined;
    const acting = (sessionId === undefined ? undefined : this.sessions.get(sessionId)) ?? episode;
    if (acting === undefined) {
      throw new EpisodeAccessError(
        'token_invalid',
        401,
        "name the episode: the 'session_id' openenv/session/create returned, or the episode id with its bearer token",
      );
    }
    return { answer: await this.mcpOnEpisode(acting, rid, method, args, sessionId) };
  }

  /** The episode an HTTP MCP session stands for, when the handle is one this façade gave out. */
  session(sessionId: string): OpenEnvEpisode | undefined {
    return this.sessions.get(sessionId);
  }

  /** A session's WebSocket reset: the session now stands for the new episode. */
  rebindSession(sessionId: string, episode: OpenEnvEpisode): void {
    if (this.sessions.has(sessionId)) {
      this.sessions.set(sessionId, episode);
    }
  }

  private async mcpOnEpisode(
    episode: OpenEnvEpisode,
    rid: string | number | null,
    method: unknown,
    args: Record<string, unknown>,
    sessionId: string | undefined,
  ): Promise<JsonRpcAnswer> {
    switch (method) {
      case 'tools/list': {
        const tools = await this.port.tools(episode.episodeId, episode.token);
        return { jsonrpc: '2.0', id: rid, result: { tools: tools.map(mcpTool) } };
      }
      case 'tools/call': {
        const { name, arguments: toolArguments = {} } = args;
        if (typeof name !== 'string') {
          return rpcError(rid, -32602, "tools/call needs a 'name'");
        }
        const tools = await this.port.tools(episode.episodeId, episode.token);
        if (!tools.some((tool) => tool.name === name)) {
          return rpcError(rid, -32602, `Unknown tool: ${name}`);
        }
        if (typeof toolArguments !== 'object' || toolArguments === null || Array.isArray(toolArguments)) {
          return rpcError(rid, -32602, "'arguments' must be an object");
        }
        const result = await this.port.call(episode.episodeId, episode.token, [
          { id: `openenv-mcp-${String(rid)}`, name, arguments: toolArguments as Record<string, unknown> },
        ]);
        const [observation] = result.observations;
        return {
          jsonrpc: '2.0',
          id: rid,
          result: {
            content: [{ type: 'text', text: observation?.text ?? '' }],
            structuredContent: observation?.structured ?? {},
            // OpenEnv's MCPToolClient.call_tool returns `data` to its caller, as fastmcp's results carry it.
            data: observation?.structured ?? {},
            isError: observation?.isError ?? true,
            _meta: { 'mirror/episode': episodeMeta(episode.episodeId, result) },
          },
        };
      }
      case 'openenv/session/close': {
        const closed = await this.close(episode);
        if (sessionId !== undefined) {
          this.sessions.delete(sessionId);
        }
        return { jsonrpc: '2.0', id: rid, result: closed };
      }
      default:
        return rpcError(rid, -32601, `Method not found: ${String(method)}`);
    }
  }
}

const rpcError = (id: string | number | null, code: number, message: string): JsonRpcAnswer => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

type ParsedAction =
  { type: 'list_tools' } | { type: 'call_tool'; toolName: string; arguments: Record<string, unknown> };

const parseAction = (action: unknown): ParsedAction => {
  const refuse = (message: string): never => {
    throw new ProtocolRequestError('invalid_action', 422, message);
  };
  if (typeof action !== 'object' || action === null || Array.isArray(action)) {
    return refuse("an action is an object: {type: 'call_tool', tool_name, arguments} or {type: 'list_tools'}");
  }
  const { type, tool_name: toolName, arguments: args = {} } = action as Record<string, unknown>;
  if (type === 'list_tools') {
    return { type };
  }
  if (type !== 'call_tool') {
    return refuse(`action type must be 'call_tool' or 'list_tools', not ${JSON.stringify(type)}`);
  }
  if (typeof toolName !== 'string' || toolName === '') {
    return refuse("a call_tool action needs 'tool_name'");
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return refuse("a call_tool action's 'arguments' must be an object");
  }
  return { type, toolName, arguments: args as Record<string, unknown> };
};

/** A tool as OpenEnv's `Tool` model carries it (snake_case `input_schema`). */
const openEnvTool = (tool: ToolDefinition): Record<string, unknown> => ({
  name: tool.name,
  description: tool.description,
  input_schema: tool.inputSchema,
});

const resetResult = (start: EpisodeStart, mcpUrl: (episodeId: string) => string): OpenEnvStepResult => ({
  observation: {
    episode_id: start.episodeId,
    task: start.task,
    prompt: start.prompt,
    tools: start.tools.map(openEnvTool),
  },
  reward: null,
  done: false,
  metadata: {
    episode_id: start.episodeId,
    token: start.token,
    environment: start.environment,
    task: start.task,
    mcp: { url: mcpUrl(start.episodeId), headers: { Authorization: `Bearer ${start.token}` } },
    limits: {
      max_steps: start.limits.maxSteps,
      ttl_seconds: start.limits.ttlSeconds,
      horizon_business_days: start.limits.horizonBusinessDays,
    },
  },
});

const episodeMeta = (episodeId: string, result: ToolCallResult): Record<string, unknown> => ({
  episode_id: episodeId,
  terminated: result.terminated,
  truncated: result.truncated,
  ...(result.reward === undefined ? {} : { reward: result.reward }),
});

const stepResult = (episodeId: string, toolName: string, result: ToolCallResult): OpenEnvStepResult => {
  const [observation] = result.observations;
  return {
    observation: {
      tool_name: toolName,
      // The shape of an MCP tool result, as OpenEnv's MCP environments put it in `result`.
      result: {
        content: [{ type: 'text', text: observation?.text ?? '' }],
        structured_content: observation?.structured ?? {},
        // What OpenEnv's MCPToolClient.call_tool returns to its caller, as fastmcp's results carry it.
        data: observation?.structured ?? {},
        is_error: observation?.isError ?? true,
      },
      error: null,
    },
    reward: result.reward ?? null,
    done: result.terminated || result.truncated,
    metadata: episodeMeta(episodeId, result),
  };
};

const openEnvState = (status: EpisodeStatus): Record<string, unknown> => ({
  episode_id: status.episodeId,
  step_count: status.steps,
  status: status.status,
  business_time: status.businessTime,
  expires_at: status.expiresAt,
  ...(status.result === undefined
    ? {}
    : {
        reward: status.result.reward,
        passed: status.result.passed,
        outcome: status.result.status,
        reason: status.result.reason,
      }),
});

const OPENENV_SCHEMAS = {
  action: {
    title: 'MirrorAction',
    description: "OpenEnv's MCP actions: call one of the episode's tools, or list them.",
    oneOf: [
      {
        type: 'object',
        properties: {
          type: { const: 'call_tool' },
          tool_name: { type: 'string' },
          arguments: { type: 'object' },
          metadata: { type: 'object' },
        },
        required: ['type', 'tool_name'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: { type: { const: 'list_tools' }, metadata: { type: 'object' } },
        required: ['type'],
        additionalProperties: false,
      },
    ],
  },
  observation: {
    title: 'MirrorObservation',
    type: 'object',
    properties: {
      tool_name: { type: 'string' },
      result: {
        type: 'object',
        properties: {
          content: { type: 'array' },
          structured_content: { type: 'object' },
          data: { type: 'object' },
          is_error: { type: 'boolean' },
        },
      },
      error: { type: ['object', 'null'] },
      tools: { type: 'array' },
      done: { type: 'boolean' },
      reward: { type: ['number', 'null'] },
      metadata: { type: 'object' },
    },
  },
  reset_observation: {
    title: 'MirrorResetObservation',
    type: 'object',
    properties: {
      episode_id: { type: 'string' },
      task: { type: 'string' },
      prompt: { type: 'object' },
      tools: { type: 'array' },
    },
  },
  state: {
    title: 'MirrorState',
    type: 'object',
    properties: {
      episode_id: { type: 'string' },
      step_count: { type: 'integer', minimum: 0 },
      status: { enum: ['running', 'ended', 'expired'] },
      business_time: { type: 'string' },
      expires_at: { type: 'string' },
      reward: { type: 'number' },
      passed: { type: 'boolean' },
    },
  },
};
