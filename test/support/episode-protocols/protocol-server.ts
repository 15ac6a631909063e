import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:http';

import express from 'express';

import { ControlPlaneAdmission, EpisodeLifecyclePort } from '@libs/agent-tools';
import { createEpisodeProtocols } from '@libs/episode-protocols';

/** `mirror up`'s rule: its one local user may do anything a trainer may. */
export const everyoneAdmitted: ControlPlaneAdmission = () => Promise.resolve(undefined);

/**
 * The episode protocols over a port, served on a free localhost port the way the api app mounts them; `admit` is the
 * control-plane rule (a keyed server's, or everyone's as on `mirror up`).
 */
export const serveProtocols = async (
  port: EpisodeLifecyclePort,
  admit: ControlPlaneAdmission = everyoneAdmitted,
): Promise<{ baseUrl: string; server: Server; errors: unknown[]; close: () => Promise<void> }> => {
  const errors: unknown[] = [];
  const protocols = createEpisodeProtocols(port, { onError: (error) => errors.push(error), admit });
  const app = express();
  app.use(protocols.router);
  const server = createServer(app);
  protocols.attachWebSocket(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${listening}`,
    server,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
