import type { ActorKind } from '@libs/evidence-trail';
import type { CredentialPlace } from '@libs/openapi-schemas';
import type { HttpMethod } from '@libs/stack-model';

/** A JSON Schema object as tools carry it (draft 2020-12 subset that MCP and OpenAI accept). */
export type JsonSchema = Record<string, unknown>;

/**
 * MCP tool annotations, derived from HTTP semantics: GET read-only, DELETE destructive, PUT idempotent. Every tool is
 * closed-world: it acts on the episode's twins, never on anything outside.
 */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** Where one flattened argument goes in the HTTP request (its name in the tool may be prefixed to avoid a clash). */
export interface ArgumentPlacement {
  argument: string;
  /**
   * `body` is the whole body, `body-field` one top-level field of a JSON (or form) body; `query-map` an object whose
   * entries each become a query parameter (a data table's PostgREST filters, `{ status: 'eq.open' }`).
   */
  in: 'path' | 'query' | 'header' | 'body' | 'body-field' | 'query-map';
  /** The parameter's or body field's own name in the request. */
  name: string;
}

/** What one tool does when called: an operation of a twin, or one of the episode's own verbs. */
export type ToolTarget =
  | {
      kind: 'operation';
      service: string;
      operationId: string;
      method: HttpMethod;
      /** The operation's path template relative to the service's base URL, e.g. `/invoices/{id}`. */
      path: string;
      /** Media type of the request body, when it has one. */
      contentType?: string;
      /** Headers every call sends (a data table's writes ask for the written rows back: `Prefer: return=representation`). */
      headers?: Record<string, string>;
      /**
       * Where the agent's token goes, as the operation's spec declares (its first security alternative): an
       * `Authorization` header, an API key header, query parameter or cookie; [] when the operation is anonymous.
       * Absent for a pack's and a data table's tools, which take the token as a bearer.
       */
      credential?: CredentialPlace[];
      arguments: ArgumentPlacement[];
    }
  | { kind: 'wait_for_events' }
  | { kind: 'finish_episode' };

/** One tool an agent may call in an episode, in Mirror's own form; the formats below are views of it. */
export interface ToolDefinition {
  /** `{service}_{operation}` in snake_case, at most 64 characters, unique in the episode. */
  name: string;
  description: string;
  /** Always `type: object`; the arguments flattened from path, query and body. */
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
  target: ToolTarget;
}

/** A tool call as any agent format brings it, normalised. */
export interface ToolCall {
  /** The caller's id for the call (OpenAI `tool_call_id` / `call_id`), echoed in the observation. */
  id: string;
  name: string;
  /** Parsed arguments, or the raw text when it was not JSON (the call is then refused with that reason). */
  arguments: Record<string, unknown> | { unparsable: string };
}

/**
 * What the agent observes from one call: the twin's status and body, or the episode verb's result. `isError` for
 * refused calls (unknown tool, arguments breaking the schema) and for twin 4xx/5xx, with the twin's body.
 */
export interface ToolObservation {
  callId: string;
  name: string;
  isError: boolean;
  /** The structured result (the twin's JSON body, `{status, body}` for errors, or the verb's result). */
  structured: Record<string, unknown>;
  /** The same as text for the model. */
  text: string;
}

/**
 * What an episode offers its outside agent, whatever the protocol (episode API, MCP, OpenEnv): the port the protocol
 * adapters call. Implemented by the live-episode registry; every method checks the episode-scoped token first and
 * throws `EpisodeAccessError` when it does not open this episode.
 */
export interface EpisodeToolPort {
  tools(episodeId: string, token: string): Promise<ToolDefinition[]>;
  call(episodeId: string, token: string, calls: ToolCall[]): Promise<ToolCallResult>;
}

export interface ToolCallResult {
  observations: ToolObservation[];
  /** The episode ended (the agent finished, or the horizon passed). */
  terminated: boolean;
  /** Cut short by a limit (steps, time), not by the task. */
  truncated: boolean;
  /** The reward, once the episode has ended and been graded. */
  reward?: number;
}

/** Why an outside caller may not use an episode: documented codes, each with its HTTP status. */
export class EpisodeAccessError extends Error {
  constructor(
    readonly code: 'episode_not_found' | 'episode_deleted' | 'token_invalid' | 'episode_ended',
    readonly status: 401 | 403 | 404 | 409 | 410,
    message: string,
  ) {
    super(message);
  }
}

/** What a new episode gives its agent: everything to start acting, in whatever protocol it speaks. */
export interface EpisodeStart {
  episodeId: string;
  /** The episode-scoped bearer token: opens this episode only, for its lifetime. */
  token: string;
  environment: string;
  task: string;
  prompt: { system: string; user: string; policy: string | null };
  tools: ToolDefinition[];
  limits: { maxSteps: number; ttlSeconds: number; horizonBusinessDays: number };
}

export interface EpisodeStatus {
  episodeId: string;
  status: 'running' | 'ended' | 'expired';
  steps: number;
  businessTime: string;
  expiresAt: string;
  /** Once ended: the reward and whether the task succeeded. */
  result?: { reward: number; passed: boolean; status: string; reason: string };
}

/**
 * A control-plane call of a protocol adapter (start an episode, read the environments) refused for its credential:
 * 401 without a valid API key, 403 for a key whose role may not.
 */
export class ControlPlaneAccessError extends Error {
  constructor(
    readonly status: 401 | 403,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Lets a control-plane call of a protocol adapter through, or throws: `ControlPlaneAccessError` for the key, or
 * `EpisodeRequestError` 404 `environment_not_found` for a key of a tenant whose environments this server does not
 * host. The episode API builds it from its access mode, so the adapters' routes are held to what its own routes are.
 */
export type ControlPlaneAdmission = (
  authorization: string | undefined,
  permission: 'environments:read' | 'episodes:run',
  environment: string,
) => Promise<ControlPlaneCaller | undefined>;

/** Who a control-plane call acts as (an API key's principal), as the evidence trail names who started an episode. */
export interface ControlPlaneCaller {
  actor: string;
  actorKind: ActorKind;
}

/**
 * The episodes' lifecycle as every protocol sees it (REST, OpenEnv): start one of an environment's tasks, read its
 * status, end it. Implemented by the live-episode registry; errors are `EpisodeAccessError` or `EpisodeRequestError`.
 */
export interface EpisodeLifecyclePort extends EpisodeToolPort {
  environments(): EnvironmentSummary[];
  /** `startedBy`: the caller the control plane admitted, when it knows one. */
  start(request: {
    environment: string;
    task: string;
    maxSteps?: number;
    startedBy?: ControlPlaneCaller;
  }): Promise<EpisodeStart>;
  status(episodeId: string, token: string): Promise<EpisodeStatus>;
  /** Ends the episode (the agent's finish) if it runs, grades it, and returns its final status. */
  finish(episodeId: string, token: string): Promise<EpisodeStatus>;
}

export interface EnvironmentSummary {
  id: string;
  title: string;
  stackVersion: string;
  scenarios: { id: string; title: string }[];
  splits: Record<'train' | 'test', { firstSeed: number; lastSeed: number }>;
}

/** A request that names what does not exist or breaks a limit: 400/404/422/429 with a documented code. */
export class EpisodeRequestError extends Error {
  constructor(
    readonly code: string,
    readonly status: 400 | 404 | 422 | 429,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}
