import { context, propagation, trace, Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

import type { MirrorConfig } from '@libs/config';

import { episodeRootIds } from './episode-trace';

let current: Tracing | undefined;

/**
 * The tracing this process started, if any: a provider is the process's own (registered globally), so a worker made
 * deep inside a command (a rollout's) traces as the process does without being handed it.
 */
export const currentTracing = (): Tracing | undefined => current;

/** The tracer every Mirror span is made with (the Temporal interceptors use their own names). */
export const mirrorTracer = (): Tracer => trace.getTracer('mirror');

/** Tracing as a process started it: what the Temporal worker plugin needs to export workflow spans too. */
export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Exports what is buffered and unregisters the provider (tests start and stop it per file). */
  stop(): Promise<void>;
}

export interface TracingOptions {
  serviceName: string;
  exporter: SpanExporter;
  /** Export each span as it ends (tests) rather than in batches (a deployment). */
  immediate?: boolean;
}

/**
 * Registers a tracer provider for the process: W3C `traceparent` propagation, the async-local context, and the ids of
 * an episode's root span drawn from its id (episode-trace.ts), so any process can join an episode's trace.
 */
export const startTracing = (options: TracingOptions): Tracing => {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName });
  const spanProcessor = options.immediate
    ? new SimpleSpanProcessor(options.exporter)
    : new BatchSpanProcessor(options.exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor], idGenerator: episodeRootIds });
  provider.register();
  const started: Tracing = {
    resource,
    spanProcessor,
    stop: async () => {
      if (current === started) {
        current = undefined;
      }
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  current = started;
  return started;
};

/** What a process needs of the settings to trace: where spans go and what the process is called there. */
export type TracingSettings = Pick<MirrorConfig, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME'>;

/**
 * OTLP over HTTP (JSON) to a collector: the endpoint is its base, as OpenTelemetry's own variable means it, and
 * traces go to `/v1/traces` under it.
 */
const otlpExporter = (endpoint: string): SpanExporter =>
  new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });

/**
 * Tracing as the settings ask: off (no provider, so every span is a no-op) unless an OTLP endpoint is configured or
 * an exporter is given (tests, or an embedder with an exporter of its own).
 */
export const tracingFromConfig = (
  config: TracingSettings,
  serviceName: string,
  exporter?: SpanExporter,
): Tracing | undefined => {
  const chosen =
    exporter ?? (config.OTEL_EXPORTER_OTLP_ENDPOINT ? otlpExporter(config.OTEL_EXPORTER_OTLP_ENDPOINT) : undefined);
  return chosen ? startTracing({ serviceName: config.OTEL_SERVICE_NAME ?? serviceName, exporter: chosen }) : undefined;
};
