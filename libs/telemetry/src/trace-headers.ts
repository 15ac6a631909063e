import { IncomingHttpHeaders } from 'node:http';

import { context, Context, defaultTextMapGetter, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

import { episodeContext } from './episode-trace';

const w3c = new W3CTraceContextPropagator();

/**
 * The trace a request's W3C `traceparent` (and `tracestate`) names, or the empty context when it names none or is
 * malformed: a caller's header may make Mirror's spans its children, never anything else.
 */
export const traceContextOf = (headers: IncomingHttpHeaders): Context =>
  w3c.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);

/** Whether a context carries a span (a valid `traceparent` was given). */
export const hasTrace = (given: Context): boolean => trace.getSpanContext(given) !== undefined;

/**
 * The `traceparent` to send with a request made for an episode: the current span when it is in the episode's trace,
 * else the episode's root (without an episode: the current span). Empty while tracing is off (no propagator).
 */
export const traceHeadersFor = (episodeId?: string): Record<string, string> => {
  const headers: Record<string, string> = {};
  propagation.inject(episodeId ? episodeContext(episodeId) : context.active(), headers);
  return headers;
};
