import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { callerTraced, episodeContext } from './episode-trace';
import { withLogFields } from './json-logger';
import { mirrorMetrics } from './metrics';
import { hasTrace, traceContextOf } from './trace-headers';

/** MCP per episode names its episode in the path. */
const mcpRoute = /^\/v1\/episodes\/([^/]{1,64})\/mcp\/?$/;
/** OpenEnv's routes (the episode is in the body, the query or the session): named by route, never by raw path. */
const openEnvRoute = /^\/openenv\/[^/]+\/(health|metadata|schema|reset|step|state|mcp)\/?$/;

/**
 * Request spans for the outside agent's protocols, which the Nest interceptor never sees (their Express routes own
 * their requests): MCP per episode is a span in the episode's trace (under the caller's `traceparent` when it sends
 * one), as the episode API's own routes are; OpenEnv's routes are spans in the caller's trace, or one of their own,
 * and the tool calls they make on an episode are spans of its trace linked to them. The span is active while the
 * route runs, so what the route does is its child. Mount before the protocols' router.
 */
export const protocolRequestSpans =
  (): RequestHandler =>
  (request: Request, response: Response, next: NextFunction): void => {
    const episodeId = mcpRoute.exec(request.path)?.[1];
    const openEnv = openEnvRoute.exec(request.path);
    if (!episodeId && !request.path.startsWith('/openenv/')) {
      next();
      return;
    }
    const given = traceContextOf(request.headers);
    const parent = episodeId
      ? hasTrace(given)
        ? callerTraced(given)
        : episodeContext(episodeId, ROOT_CONTEXT)
      : given;
    const route = episodeId ? '/v1/episodes/:id/mcp' : `/openenv/:env/${openEnv?.[1] ?? '*'}`;
    const span = trace.getTracer('mirror').startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          ...(episodeId ? { 'mirror.episode.id': episodeId } : {}),
        },
      },
      parent,
    );
    response.once('close', () => {
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        mirrorMetrics.errors.inc({ component: 'api', kind: 'http_5xx' });
      }
      span.end();
    });
    context.with(trace.setSpan(parent, span), () => withLogFields(episodeId ? { episodeId } : {}, next));
  };
