import { createHash } from 'node:crypto';

import {
  Attributes,
  context,
  Context,
  createContextKey,
  Link,
  SpanContext,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { IdGenerator, RandomIdGenerator } from '@opentelemetry/sdk-trace-base';

import { withLogFields } from './json-logger';

/**
 * One trace per episode, joined by every process that touches it (the api's tool calls, the gateway's twin requests,
 * the worker's workflow and activities) without asking anyone: the root span's ids are drawn from the episode id, so
 * a gateway that only sees `/e/{episodeId}/…` knows the trace to join. An agent that sends its own `traceparent`
 * when it starts an episode makes its trace the parent instead; that root is remembered in the process that started
 * the episode, and the other processes join it through the `traceparent` Mirror sends along (Temporal headers, the
 * twin client's requests).
 */
export const episodeTraceIds = (episodeId: string): { traceId: string; spanId: string } => {
  const digest = createHash('sha256').update(`mirror-episode-trace\u0000${episodeId}`).digest('hex');
  return { traceId: digest.slice(0, 32), spanId: digest.slice(32, 48) };
};

/** Random ids, except for the one span started inside `withIds` (an episode's root). */
class EpisodeRootIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private pending: { traceId: string; spanId: string } | undefined;

  generateTraceId(): string {
    return this.pending?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.pending?.spanId ?? this.random.generateSpanId();
  }

  /** Starting a span is synchronous, so the ids are taken by exactly the span `start` makes. */
  withIds<T>(ids: { traceId: string; spanId: string }, start: () => T): T {
    this.pending = ids;
    try {
      return start();
    } finally {
      this.pending = undefined;
    }
  }
}

export const episodeRootIds = new EpisodeRootIdGenerator();

/** Roots of episodes an agent's trace parents, per process; bounded, oldest forgotten first. */
const agentParentedRoots = new Map<string, SpanContext>();
const maxRemembered = 10_000;

const remember = (episodeId: string, root: SpanContext): void => {
  if (agentParentedRoots.size >= maxRemembered) {
    agentParentedRoots.delete(agentParentedRoots.keys().next().value as string);
  }
  agentParentedRoots.set(episodeId, root);
};

/** The span context of an episode's root: the agent-parented one this process started, else the one its id gives. */
export const episodeSpanContext = (episodeId: string): SpanContext =>
  agentParentedRoots.get(episodeId) ?? {
    ...episodeTraceIds(episodeId),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  };

const callerTraceKey = createContextKey('mirror.caller-trace');

/** Marks a context as the trace a caller asked for with its `traceparent`: work on an episode stays in it. */
export const callerTraced = (given: Context): Context => given.setValue(callerTraceKey, true);

/**
 * The context work on an episode runs in: `from` when it is already inside the episode's trace (a tool call's span,
 * a `traceparent` an activity sent) or in the trace the caller named for this request, else the episode's root (a
 * rollout activity acting on one of its episodes, a request that came without a `traceparent`).
 */
export const episodeContext = (episodeId: string, from: Context = context.active()): Context => {
  const root = episodeSpanContext(episodeId);
  const current = trace.getSpanContext(from);
  const keep = current && (current.traceId === root.traceId || from.getValue(callerTraceKey) === true);
  return keep ? from : trace.setSpanContext(from, root);
};

/**
 * Opens an episode's trace around its start (the twins' episode already made, its workflow about to start): the
 * `mirror.episode` span is its root. Only a remote parent (an agent's `traceparent`) becomes its parent; local work
 * that starts episodes (a rollout's activity) is linked, so every episode keeps a trace of its own.
 */
export const traceEpisodeStart = async <T>(
  episodeId: string,
  attributes: Attributes,
  start: () => Promise<T>,
): Promise<T> => {
  const tracer = trace.getTracer('mirror');
  const active = context.active();
  const parent = trace.getSpanContext(active);
  const spanAttributes = { 'mirror.episode.id': episodeId, ...attributes };
  const span = parent?.isRemote
    ? tracer.startSpan('mirror.episode', { attributes: spanAttributes }, active)
    : episodeRootIds.withIds(episodeTraceIds(episodeId), () =>
        tracer.startSpan('mirror.episode', {
          root: true,
          attributes: spanAttributes,
          links: parent ? [{ context: parent } satisfies Link] : [],
        }),
      );
  if (parent?.isRemote && span.spanContext().traceId === parent.traceId) {
    remember(episodeId, { ...span.spanContext(), isRemote: true });
  }
  try {
    return await context.with(trace.setSpan(active, span), start);
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
};

/**
 * Runs `work` as a span of the episode's trace (a child of the current span when that is in the trace already, else
 * linked to it), with the episode on the log lines it writes; a throw marks the span failed.
 */
export const inEpisodeSpan = <T>(
  episodeId: string,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> => {
  const from = context.active();
  const parent = episodeContext(episodeId, from);
  // Work asked for by a request outside the episode's trace (an OpenEnv route naming the episode in its body) links
  // to that request's span.
  const asker = parent === from ? undefined : trace.getSpanContext(from);
  const span = trace
    .getTracer('mirror')
    .startSpan(
      name,
      { attributes: { 'mirror.episode.id': episodeId, ...attributes }, links: asker ? [{ context: asker }] : [] },
      parent,
    );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await withLogFields({ episodeId }, work);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
};
