import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

import type { ToolCall, ToolDefinition, ToolObservation } from '@libs/agent-tools';

/**
 * What the loop needs from an episode, whatever hosts it: the tools in Mirror's form (shown to the model in the
 * Chat Completions tool format) and a way to perform one call. `ended` once the episode is over (the agent finished
 * or the horizon passed): the loop stops there.
 */
export interface EpisodeTools {
  tools: ToolDefinition[];
  chatTools: ChatCompletionTool[];
  call(call: ToolCall): Promise<{ observation: ToolObservation; ended: boolean }>;
}

export interface ModelLoopOptions {
  /** The model's name at the endpoint. */
  model: string;
  /** The model's turns at most; the episode is finished after the last one. */
  maxTurns: number;
  /** Sampling temperature; 0 by default so that a fixed model plays a seed the same way twice, where it can. */
  temperature?: number;
}

export interface ModelLoopSummary {
  turns: number;
  toolCalls: number;
  /** Why the loop stopped: the episode ended, the model answered without a tool call, or it ran out of turns. */
  stoppedBecause: 'episode_ended' | 'model_stopped' | 'turn_limit';
}

const argumentsOf = (raw: string): ToolCall['arguments'] => {
  try {
    const parsed: unknown = JSON.parse(raw === '' ? '{}' : raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { unparsable: raw };
  } catch {
    return { unparsable: raw };
  }
};

/**
 * The whole agent loop over any OpenAI-compatible Chat Completions endpoint: the prompt, then turn after turn the
 * model's tool calls are performed in order and their observations returned as tool messages, until the episode
 * ends, the model answers in prose only (it is done: the caller finishes the episode), or the turns run out. This is
 * the loop the README shows for others to copy; nothing in it knows a scenario.
 */
export const playWithModel = async (
  client: OpenAI,
  options: ModelLoopOptions,
  prompt: { system: string; user: string },
  episode: EpisodeTools,
): Promise<ModelLoopSummary> => {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: prompt.system },
    { role: 'user', content: prompt.user },
  ];
  let toolCalls = 0;
  for (let turn = 1; turn <= options.maxTurns; turn += 1) {
    const completion = await client.chat.completions.create({
      model: options.model,
      messages,
      tools: episode.chatTools,
      temperature: options.temperature ?? 0,
    });
    const message = completion.choices[0]?.message;
    if (!message) {
      throw new Error(`the model endpoint returned no choice on turn ${turn}`);
    }
    messages.push(message);
    const calls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
    if (calls.length === 0) {
      return { turns: turn, toolCalls, stoppedBecause: 'model_stopped' };
    }
    for (const call of calls) {
      toolCalls += 1;
      const { observation, ended } = await episode.call({
        id: call.id,
        name: call.function.name,
        arguments: argumentsOf(call.function.arguments),
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content: observation.text });
      if (ended) {
        return { turns: turn, toolCalls, stoppedBecause: 'episode_ended' };
      }
    }
  }
  return { turns: options.maxTurns, toolCalls, stoppedBecause: 'turn_limit' };
};
