import { createServer, Server } from 'node:http';

import { metricsText } from '@libs/telemetry';

/** What the probes ask of the worker: the SDK's own state (`RUNNING` while it polls). */
export interface WorkerProbe {
  getState(): string;
}

/**
 * The worker has no HTTP of its own; orchestrators probe it here. `/healthz` fails once the worker has failed or
 * stopped (restart it); `/readyz` only while it polls its task queue; `/metrics` for Prometheus. Off unless
 * MIRROR_HEALTH_PORT is set.
 */
export const startHealthServer = (worker: WorkerProbe, port: number, host: string): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer((request, response) => {
      const state = worker.getState();
      const path = (request.url ?? '/').split('?')[0];
      if (path === '/metrics') {
        // Prometheus scrapes the worker here (the health port is the operator's, never an agent's).
        void metricsText().then(({ contentType, body }) => {
          response.writeHead(200, { 'content-type': contentType });
          response.end(body);
        });
        return;
      }
      const ok =
        path === '/healthz'
          ? !['FAILED', 'STOPPED'].includes(state)
          : path === '/readyz'
            ? state === 'RUNNING'
            : undefined;
      response.writeHead(ok === undefined ? 404 : ok ? 200 : 503, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(ok === undefined ? { error: 'not_found' } : { status: ok ? 'ok' : 'unavailable', state }),
      );
    });
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
