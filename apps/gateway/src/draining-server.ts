import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

import { outlastClientKeepAlive } from '@libs/twin-engine';

export interface DrainingServer {
  server: Server;
  /**
   * Stops taking connections and resolves once every request in flight has been answered (or `graceMs` passed: the
   * rest are cut, and the clients' own retries take them elsewhere).
   */
  drain: (graceMs: number) => Promise<void>;
}

/**
 * An HTTP server that can stop gracefully: once draining, new connections are refused (a client moves to another
 * gateway knowing nothing was sent), answers in flight still go out but close their connection, and the health
 * route says 503 so a load balancer stops sending. A write the gateway accepted is answered, never cut half-way.
 */
export const drainingServer = (
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): DrainingServer => {
  let draining = false;
  const inFlight = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    inFlight.add(response);
    response.once('close', () => inFlight.delete(response));
    if (draining) {
      response.setHeader('connection', 'close');
      if ((request.url ?? '').split('?')[0] === '/_mirror/health') {
        request.resume();
        response.writeHead(503, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: 'draining' }));
        return;
      }
    }
    handler(request, response);
  });
  const drain = (graceMs: number): Promise<void> =>
    new Promise((resolve) => {
      draining = true;
      // Answers still to come close their connection, so no client sends another request into a stopping gateway.
      for (const response of inFlight) {
        if (!response.headersSent) {
          response.setHeader('connection', 'close');
        }
      }
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      cut.unref();
      server.close(() => {
        clearTimeout(cut);
        resolve();
      });
      // Kept-alive connections with no request in flight would hold the server open; requests in flight finish.
      server.closeIdleConnections();
    });
  return { server: outlastClientKeepAlive(server), drain };
};
