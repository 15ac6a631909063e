import type { DynamicModule } from '@nestjs/common';

import type { EpisodeLifecyclePort } from '@libs/agent-tools';

/**
 * Where protocol adapters over the episodes (MCP per episode, the OpenEnv façade) mount in the control plane: each
 * is a function given the live-episode registry as the lifecycle port and returning the Nest module that serves it.
 * Add an adapter here; `mirror up` and the API serve every one listed. The episode routes parse their own bodies as
 * text; routes ending in `/mcp` and under `/openenv` are left unparsed for the adapters.
 */
export type EpisodeProtocolMount = (port: EpisodeLifecyclePort) => DynamicModule;

export const episodeProtocolMounts: EpisodeProtocolMount[] = [];
