import { randomUUID } from 'node:crypto';

import { CallToolResult, ProtocolError, ProtocolErrorCode, Server, Tool } from '@modelcontextprotocol/server';

import {
  EpisodeAccessError,
  EpisodeRequestError,
  EpisodeToolPort,
  ToolCallResult,
  ToolDefinition,
} from '@libs/agent-tools';

/** Which episode one MCP request acts on, and with which token: set by the endpoint once the token opened it. */
export interface EpisodeCredentials {
  episodeId: string;
  token: string;
}

/** The key under which a call result tells the agent how the episode stands (terminated, truncated, reward). */
export const EPISODE_META_KEY = 'mirror/episode';

/** A tool as MCP lists it: the definition's schema passed as is, the HTTP target kept private. */
export const mcpTool = (tool: ToolDefinition): Tool => ({
  name: tool.name,
  description: tool.description,
  inputSchema: tool.inputSchema as Tool['inputSchema'],
  annotations: { ...tool.annotations },
});

/**
 * One MCP server instance for one HTTP request on one episode (the endpoint is stateless: nothing outlives the
 * request). The low-level `Server` because the tools are the episode's, listed from the port with their JSON Schemas
 * unchanged, and the port (not the SDK) refuses bad arguments with pointers into them.
 */
export const episodeMcpServer = (port: EpisodeToolPort, episode: EpisodeCredentials, version: string): Server => {
  const server = new Server({ name: 'mirror-episode', version }, { capabilities: { tools: {} } });

  server.setRequestHandler('tools/list', async () => {
    const tools = await portCall(() => port.tools(episode.episodeId, episode.token));
    return { tools: tools.map(mcpTool) };
  });

  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: args } = request.params;
    const tools = await portCall(() => port.tools(episode.episodeId, episode.token));
    if (!tools.some((tool) => tool.name === name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`, {
        tools: tools.map((tool) => tool.name),
      });
    }
    let result: ToolCallResult;
    try {
      result = await port.call(episode.episodeId, episode.token, [
        { id: `mcp-${randomUUID()}`, name, arguments: args ?? {} },
      ]);
    } catch (error) {
      // The episode ended (or was refused) between the endpoint's check and the call: the agent reads why.
      if (error instanceof EpisodeAccessError || error instanceof EpisodeRequestError) {
        return server.projectCallToolResult(refusal(error, episode.episodeId), undefined);
      }
      throw error;
    }
    const [observation] = result.observations;
    if (observation === undefined) {
      throw new Error(`the episode port answered no observation for ${name}`);
    }
    const answer: CallToolResult = {
      content: [{ type: 'text', text: observation.text }],
      structuredContent: observation.structured,
      isError: observation.isError,
      _meta: {
        [EPISODE_META_KEY]: {
          episode_id: episode.episodeId,
          terminated: result.terminated,
          truncated: result.truncated,
          ...(result.reward === undefined ? {} : { reward: result.reward }),
        },
      },
    };
    return server.projectCallToolResult(answer, undefined);
  });

  return server;
};

/** The episode refused the call: an `isError` result naming the documented code, so the agent's loop goes on. */
const refusal = (error: EpisodeAccessError | EpisodeRequestError, episodeId: string): CallToolResult => {
  const structured = { error: { code: error.code, message: error.message, episode_id: episodeId } };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    isError: true,
  };
};

/** Port errors on listing become protocol errors that carry the documented code. */
const portCall = async <T>(call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    if (error instanceof EpisodeAccessError || error instanceof EpisodeRequestError) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message, {
        code: error.code,
        status: error.status,
      });
    }
    throw error;
  }
};
