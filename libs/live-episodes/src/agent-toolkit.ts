import type { ToolDefinition } from '@libs/agent-tools';
import type { Scenario } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-model';

/**
 * What the registry needs of `@libs/agent-tools`: the episode's tools, their argument checks and the operation calls,
 * with the signatures of the issue-13 plan. Passed in, so the registry holds no protocol or catalogue logic itself.
 */
export interface AgentToolkit {
  toolCatalogue(model: StackModel, tools: Scenario['task']['tools']): ToolDefinition[];
  argumentProblems(tool: ToolDefinition, args: Record<string, unknown>): string[];
  callOperation(
    tool: ToolDefinition,
    args: Record<string, unknown>,
    endpoint: { baseUrl: string; token: string },
  ): Promise<{ isError: boolean; structured: Record<string, unknown>; text: string }>;
}
