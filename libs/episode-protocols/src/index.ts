export * from './episode-protocols';
export { createEpisodeMcpEndpoint, EpisodeMcpEndpoint } from './mcp/episode-mcp-endpoint';
export { EPISODE_META_KEY, mcpTool } from './mcp/episode-mcp-server';
export { OpenEnvFacade } from './openenv/openenv-facade';
export { bearerToken, httpErrorAnswer } from './protocol-errors';
export * from './mount-episode-protocols';
