import type { INestApplication } from '@nestjs/common';

import type { ControlPlaneAdmission, EpisodeLifecyclePort } from '@libs/agent-tools';

/**
 * How a protocol adapter over the episodes (MCP per episode, the OpenEnv façade) mounts in the control plane: called
 * with the Nest app after it is created and before it listens, and the live-episode registry as the lifecycle port
 * (the adapters add Express routes of their own, which read their raw bodies). The episode API's own routes parse
 * their bodies as text themselves; routes ending in `/mcp` and everything outside `/v1/episodes` and
 * `/v1/environments` (so `/openenv/…`) reach the adapters unparsed. `admit` holds the adapters' control-plane routes
 * (starting episodes, reading environments) to the episode API's own rule for them.
 */
export type EpisodeProtocolMount = (
  app: INestApplication,
  port: EpisodeLifecyclePort,
  admit: ControlPlaneAdmission,
) => void;
