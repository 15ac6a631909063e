import type { Server } from 'node:http';

import { INestApplication, Logger } from '@nestjs/common';

import { ControlPlaneAdmission, EpisodeLifecyclePort } from '@libs/agent-tools';
import { protocolRequestSpans } from '@libs/telemetry';

import { createEpisodeProtocols } from './episode-protocols';

/**
 * Mounts the outside agent's protocols on the control plane: MCP per episode (`/v1/episodes/:id/mcp`) and the OpenEnv
 * façade (`/openenv/:env/…`, its WebSocket session included). Express routes rather than Nest controllers: the MCP SDK
 * and OpenEnv's WebSocket each own their request and response, and they must read the raw body themselves. Call it
 * after `NestFactory.create` and before `listen`, so the routes precede Nest's own.
 */
export const mountEpisodeProtocols = (
  app: INestApplication,
  port: EpisodeLifecyclePort,
  admit: ControlPlaneAdmission,
  options: { version?: string; allowedHostnames?: string[]; logger?: Logger } = {},
): void => {
  const logger = options.logger ?? new Logger('episode-protocols');
  const protocols = createEpisodeProtocols(port, {
    version: options.version,
    allowedHostnames: options.allowedHostnames,
    admit,
    onError: (error) => logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error)),
  });
  app.use(protocolRequestSpans(), protocols.router);
  protocols.attachWebSocket(app.getHttpServer() as Server);
};
