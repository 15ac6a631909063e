import type { ToolCall, ToolObservation } from './tool-contract';

/** A body that is not tool calls in either OpenAI shape: where it broke (a JSON pointer into the body) and how. */
export class ToolCallShapeError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(`${pointer || '/'}: ${message}`);
  }
}

export type ToolCallShape = 'chat' | 'responses';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Arguments as the model wrote them: JSON text (or, leniently, an object); anything else kept to be refused. */
const argumentsOf = (raw: unknown): ToolCall['arguments'] => {
  if (isObject(raw)) {
    return raw;
  }
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    return {};
  }
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : { unparsable: text };
  } catch {
    return { unparsable: text };
  }
};

const text = (value: unknown, pointer: string, what: string): string => {
  if (typeof value !== 'string' || value === '') {
    throw new ToolCallShapeError(pointer, `${what} must be a non-empty string`);
  }
  return value;
};

const chatCalls = (calls: unknown, at: string): ToolCall[] => {
  if (!Array.isArray(calls)) {
    throw new ToolCallShapeError(at, 'tool_calls must be an array');
  }
  return calls.map((call, index) => {
    const pointer = `${at}/${index}`;
    if (!isObject(call) || !isObject(call.function)) {
      throw new ToolCallShapeError(pointer, 'a Chat tool call is {id, type: "function", function: {name, arguments}}');
    }
    return {
      id: text(call.id, `${pointer}/id`, 'id'),
      name: text(call.function.name, `${pointer}/function/name`, 'the function name'),
      arguments: argumentsOf(call.function.arguments),
    };
  });
};

/** Responses output: function calls among messages and reasoning, which are not the twin's business. */
const responsesCalls = (items: unknown[], at: string): ToolCall[] =>
  items.flatMap((item, index) => {
    const pointer = `${at}/${index}`;
    if (!isObject(item)) {
      throw new ToolCallShapeError(pointer, 'a Responses output item must be an object');
    }
    if (item.type !== 'function_call') {
      return [];
    }
    return [
      {
        id: text(item.call_id, `${pointer}/call_id`, 'call_id'),
        name: text(item.name, `${pointer}/name`, 'name'),
        arguments: argumentsOf(item.arguments),
      },
    ];
  });

/**
 * Tool calls as OpenAI's APIs give them, normalised: Chat Completions' `{ tool_calls }` or the assistant
 * `{ message: { tool_calls } }`, Responses' `{ output: [...] }` or its bare array of items. Arguments that are not a
 * JSON object are kept as `{ unparsable }` so the call can be refused with that reason.
 */
export const parseToolCalls = (body: unknown): { shape: ToolCallShape; calls: ToolCall[] } => {
  if (Array.isArray(body)) {
    return { shape: 'responses', calls: responsesCalls(body, '') };
  }
  if (!isObject(body)) {
    throw new ToolCallShapeError(
      '',
      'expected tool calls: {tool_calls}, {message: {tool_calls}}, {output} or an array',
    );
  }
  if ('tool_calls' in body) {
    return { shape: 'chat', calls: chatCalls(body.tool_calls, '/tool_calls') };
  }
  if ('message' in body) {
    if (!isObject(body.message) || !('tool_calls' in body.message)) {
      throw new ToolCallShapeError('/message', 'an assistant message with tool_calls was expected');
    }
    return { shape: 'chat', calls: chatCalls(body.message.tool_calls, '/message/tool_calls') };
  }
  if ('output' in body) {
    if (!Array.isArray(body.output)) {
      throw new ToolCallShapeError('/output', 'output must be an array of items');
    }
    return { shape: 'responses', calls: responsesCalls(body.output, '/output') };
  }
  throw new ToolCallShapeError('', 'expected tool calls: {tool_calls}, {message: {tool_calls}}, {output} or an array');
};

/** Observations in the caller's shape: Chat `tool` messages, or Responses `function_call_output` items. */
export const toolMessages = (shape: ToolCallShape, observations: readonly ToolObservation[]): unknown[] =>
  observations.map((observation) =>
    shape === 'chat'
      ? { role: 'tool', tool_call_id: observation.callId, content: observation.text }
      : { type: 'function_call_output', call_id: observation.callId, output: observation.text },
  );
