import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** The episode API's bodies as the OpenAPI document describes them (the contract in docs and the Python client). */
const object = (
  properties: Record<string, SchemaObject>,
  required: string[] = Object.keys(properties),
): SchemaObject => ({
  type: 'object',
  properties,
  required,
});
const string: SchemaObject = { type: 'string' };
const integer: SchemaObject = { type: 'integer' };
const number: SchemaObject = { type: 'number' };
const boolean: SchemaObject = { type: 'boolean' };
const anyObject: SchemaObject = { type: 'object', additionalProperties: true };
const nullable = (schema: SchemaObject): SchemaObject => ({ ...schema, nullable: true });

export const errorSchema: SchemaObject = object({
  error: object({ code: string, message: string, episode_id: string }, ['code', 'message']),
});

const split = object({ first_seed: integer, last_seed: integer });
const message = object({ role: { type: 'string', enum: ['system', 'user'] }, content: string });
const episodeStart = object({
  episode_id: string,
  token: { type: 'string', description: 'The episode-scoped bearer token: Authorization: Bearer <token>' },
  environment: string,
  task: string,
  prompt: object({ messages: { type: 'array', items: message }, policy: nullable(string) }),
  tools: { type: 'array', items: anyObject, description: 'The tools as MCP lists them (name, inputSchema, …)' },
  mcp: object({ url: string, headers: object({ Authorization: string }) }),
  limits: object({ max_steps: integer, ttl_seconds: integer, horizon_business_days: number }),
});
const outcome = object({ reward: number, passed: boolean, status: string, reason: string });
const violation = object({ rule: string, severity: string, evidence: { type: 'array', items: anyObject } });

export const schemas = {
  environments: object({
    environments: {
      type: 'array',
      items: object({
        id: string,
        title: string,
        stack_version: string,
        scenarios: { type: 'array', items: object({ id: string, title: string }) },
        splits: object({ train: split, test: split }),
      }),
    },
  }),
  tasks: object({
    tasks: {
      type: 'array',
      items: object({
        id: string,
        scenario: string,
        seed: integer,
        split: { type: 'string', enum: ['train', 'test'] },
      }),
    },
    total: integer,
    offset: integer,
    limit: integer,
    next_offset: nullable(integer),
  }),
  capacity: object({ live: integer, max: integer, available: integer }),
  episodeRequest: object(
    {
      environment: string,
      task: { type: 'string', description: '<scenario>@<seed>; or give scenario and seed' },
      scenario: string,
      seed: integer,
      max_steps: integer,
    },
    ['environment'],
  ),
  groupRequest: object(
    { environment: string, task: string, scenario: string, seed: integer, max_steps: integer, n: integer },
    ['environment', 'n'],
  ),
  episodeStart,
  group: object({ group_id: string, episodes: { type: 'array', items: episodeStart } }),
  toolCallsRequest: {
    description:
      'OpenAI Chat: { tool_calls: [...] } or { message: { role: "assistant", tool_calls } }; Responses: { output: [{ type: "function_call", call_id, name, arguments }] } or a bare array of such items',
    oneOf: [anyObject, { type: 'array', items: anyObject }],
  },
  toolCallsResult: object(
    {
      episode_id: string,
      step: integer,
      messages: { type: 'array', items: anyObject, description: 'Chat shape: tool messages' },
      output: { type: 'array', items: anyObject, description: 'Responses shape: function_call_output items' },
      terminated: boolean,
      truncated: boolean,
      reward: number,
    },
    ['episode_id', 'step', 'terminated', 'truncated'],
  ),
  tools: object({ episode_id: string, format: string, tools: { type: 'array', items: anyObject } }),
  status: object(
    {
      episode_id: string,
      status: { type: 'string', enum: ['running', 'ended', 'expired'] },
      steps: integer,
      business_time: string,
      expires_at: string,
      outcome,
    },
    ['episode_id', 'status', 'steps', 'business_time', 'expires_at'],
  ),
  grade: object({
    episode_id: string,
    reward: nullable(number),
    passed: nullable(boolean),
    status: string,
    reason: string,
    ended_by: nullable(string),
    episode_status: string,
    violations: { type: 'array', items: violation },
  }),
  trajectory: object({
    episode_id: string,
    environment: string,
    task: string,
    group_id: nullable(string),
    status: string,
    reward: nullable(number),
    steps: {
      type: 'array',
      items: object(
        {
          index: integer,
          at: string,
          wall_ms: number,
          business_time: string,
          call: object({ id: string, name: string, arguments: anyObject }),
          observation: object({ is_error: boolean, structured: anyObject, text: string }),
          counted: boolean,
          events: object({ after_seq: integer, through_seq: integer }),
          process_reward: number,
          process_reasons: { type: 'array', items: string },
          reward: number,
        },
        ['index', 'at', 'business_time', 'call', 'observation', 'counted', 'events', 'process_reward'],
      ),
    },
    events: nullable({ type: 'array', items: anyObject }),
  }),
  deleted: object({ episode_id: string, status: { type: 'string', enum: ['deleted'] } }),
  ping: object({ episode_id: string, expires_at: string }),
};
