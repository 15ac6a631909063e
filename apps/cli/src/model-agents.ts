import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';

import { toolCatalogue, toolsAs } from '@libs/agent-tools';
import { agentToolkit, episodePrompt, performToolCall } from '@libs/live-episodes';
import { playWithModel } from '@libs/model-agent';
import type { ReferenceAgent } from '@libs/reference-agents';
import type { Scenario } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-model';
import { UsageError } from '@cli/cli-output';

const prefix = 'openai:';

/** `openai:<model>`: a model at an OpenAI-compatible endpoint plays the episode. */
export const isModelAgent = (name: string): boolean => name.startsWith(prefix);

export interface ModelEndpoint {
  url: string | undefined;
  key: string | undefined;
  maxTurns: number;
}

/**
 * The agent a model is, for one scenario: the same tools, prompt and tool calls an outside agent gets over the episode
 * API (the scenario's tool catalogue, `performToolCall` on the agent's own session), driven by the loop of
 * `@libs/model-agent`. When the model stops without finishing, the episode is finished for it.
 */
export const modelAgent = (
  name: string,
  model: StackModel,
  scenario: Scenario,
  endpoint: ModelEndpoint,
): ReferenceAgent => {
  const modelName = name.slice(prefix.length);
  if (!modelName) {
    throw new UsageError(`${name}: name the model, as in openai:gpt-4o-mini`);
  }
  if (!endpoint.url) {
    throw new UsageError(`${name} needs an OpenAI-compatible endpoint: --llm-url <url>/v1 or MIRROR_AGENT_LLM_URL`);
  }
  const tools = toolCatalogue(model, scenario.task.tools);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const chatTools = toolsAs('openai_chat', tools) as ChatCompletionTool[];
  return {
    name,
    run: async (session) => {
      // Built per episode: the SDK reads the global fetch when it is made, so a test's fake endpoint is seen.
      const client = new OpenAI({ baseURL: endpoint.url, apiKey: endpoint.key ?? 'none', maxRetries: 2 });
      let ended = false;
      await playWithModel(client, { model: modelName, maxTurns: endpoint.maxTurns }, episodePrompt(session), {
        tools,
        chatTools,
        call: async (call) => {
          const performed = await performToolCall(byName, session, agentToolkit, call);
          ended ||= performed.ends !== undefined;
          return { observation: performed.observation, ended: performed.ends !== undefined };
        },
      });
      if (!ended) {
        await session.finish();
      }
    },
  };
};
