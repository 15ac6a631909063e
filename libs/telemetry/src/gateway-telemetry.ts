import { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

import { episodeContext } from './episode-trace';
import { withLogFields } from './json-logger';
import { boundedLabel, metricsText, mirrorMetrics, statusClass } from './metrics';
import { metricsAllowed } from './metrics-access';
import { hasTrace, traceContextOf } from './trace-headers';

/** `/metrics` answers whoever holds `key` as a bearer token (agents reach the gateway; they have no such key). */
const serveMetrics = (request: IncomingMessage, response: ServerResponse, key: string | undefined): void => {
  request.resume();
  if (!metricsAllowed(request.headers.authorization, key)) {
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'unauthorized', message: '/metrics needs the operator key' }));
    return;
  }
  void metricsText().then(
    ({ contentType, body }) => {
      response.writeHead(200, { 'content-type': contentType });
      response.end(body);
    },
    () => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'internal_error', message: 'metrics could not be collected' }));
    },
  );
};

/**
 * Makes a twin gateway observable without touching how it serves: each request gets a server span (the caller's
 * `traceparent` its parent, else the root of the episode its path names), its latency by service and status class
 * in the histogram, its 5xx counted, and its episode and tenant on every log line it writes; `/metrics` is served
 * to the holder of `metricsKey`. The gateway's own request listeners run unchanged inside.
 */
export const observeGateway = (server: Server, options: { tenantId: string; metricsKey?: string }): Server => {
  const handlers = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  const tracer = trace.getTracer('mirror');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      serveMetrics(request, response, options.metricsKey);
      return;
    }
    const [, episodeId, service] = /^\/e\/([^/]{1,64})\/([^/]+)/.exec(path) ?? [];
    const given = traceContextOf(request.headers);
    const parent = hasTrace(given) ? given : episodeId ? episodeContext(episodeId, ROOT_CONTEXT) : ROOT_CONTEXT;
    const method = request.method ?? 'GET';
    const span = tracer.startSpan(
      service ? `twin ${method} ${service}` : `gateway ${method}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': path.slice(0, 512),
          'mirror.tenant.id': options.tenantId,
          ...(episodeId ? { 'mirror.episode.id': episodeId } : {}),
          ...(service ? { 'mirror.service': service.slice(0, 64) } : {}),
        },
      },
      parent,
    );
    const started = performance.now();
    response.once('close', () => {
      const status = response.statusCode;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        mirrorMetrics.errors.inc({ component: 'gateway', kind: 'http_5xx' });
      }
      span.end();
      if (service) {
        mirrorMetrics.twinRequestDuration.observe(
          { service: boundedLabel('service', service), status_class: statusClass(status) },
          (performance.now() - started) / 1000,
        );
      }
    });
    context.with(trace.setSpan(parent, span), () =>
      withLogFields({ tenantId: options.tenantId, ...(episodeId ? { episodeId } : {}) }, () => {
        for (const handler of handlers) {
          handler.call(server, request, response);
        }
      }),
    );
  });
  return server;
};
