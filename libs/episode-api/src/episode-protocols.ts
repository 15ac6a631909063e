import type { DynamicModule } from '@nestjs/common';

import type { EpisodeLifecyclePort } from '@libs/agent-tools';

/**
 * How a protocol adapter over the episodes (MCP per episode, the OpenEnv façade) mounts in the control plane: a
 * function given the live-episode registry as the lifecycle port, returning the Nest module that serves it. The
 * episode API's own routes parse their bodies as text themselves; routes ending in `/mcp` and everything outside
 * `/v1/episodes` and `/v1/environments` (so `/openenv/…`) reach the adapters unparsed.
 */
export type EpisodeProtocolMount = (port: EpisodeLifecyclePort) => DynamicModule;
