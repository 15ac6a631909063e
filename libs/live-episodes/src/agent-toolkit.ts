import {
  argumentProblems,
  callOperation,
  parseToolCalls,
  ToolCall,
  toolCatalogue,
  ToolDefinition,
  ToolFormat,
  toolMessages,
  ToolObservation,
  toolsAs,
} from '@libs/agent-tools';
import type { Scenario } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-model';

/**
 * What the registry needs of `@libs/agent-tools`: the episode's tools, their argument checks and the operation calls,
 * and the wire formats the episode API speaks, with the signatures of the issue-13 plan. Passed in, so the registry
 * and the API hold no catalogue or format logic of their own.
 */
export interface AgentToolkit {
  toolCatalogue(model: StackModel, tools: Scenario['task']['tools']): ToolDefinition[];
  argumentProblems(tool: ToolDefinition, args: Record<string, unknown>): string[];
  callOperation(
    tool: ToolDefinition,
    args: Record<string, unknown>,
    endpoint: { baseUrl: string; token: string },
  ): Promise<{ isError: boolean; structured: Record<string, unknown>; text: string }>;
  /** The tools in a wire format. */
  toolsAs(format: ToolFormat, tools: ToolDefinition[]): unknown[];
  /** Tool calls in OpenAI Chat or Responses shapes, normalised; throws an error with a `pointer` on a bad shape. */
  parseToolCalls(body: unknown): { shape: 'chat' | 'responses'; calls: ToolCall[] };
  toolMessages(shape: 'chat' | 'responses', observations: ToolObservation[]): unknown[];
}

/** The toolkit itself, as `@libs/agent-tools` implements it. */
export const agentToolkit: AgentToolkit = {
  toolCatalogue,
  argumentProblems,
  callOperation: (tool, args, endpoint) => callOperation(tool, args, endpoint),
  toolsAs,
  parseToolCalls,
  toolMessages,
};
