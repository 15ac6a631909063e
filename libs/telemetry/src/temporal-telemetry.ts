import { context } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ClientInterceptors, Next, WorkflowClientInterceptor } from '@temporalio/client';
import {
  OpenTelemetryPlugin,
  OpenTelemetryPluginOptions,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, WorkerPlugin } from '@temporalio/worker';

import { episodeContext, traceEpisodeStart } from './episode-trace';
import { boundedLabel, mirrorMetrics } from './metrics';
import type { Tracing } from './tracing';

/** Episode workflows are `episode-{episodeId}` (episode-runs' `workflowIdOf`). */
const episodeOfWorkflow = (workflowId: string | undefined): string | undefined =>
  workflowId?.startsWith('episode-') ? workflowId.slice('episode-'.length) : undefined;

type Method = 'signal' | 'signalWithStart' | 'startUpdate' | 'startUpdateWithStart' | 'query' | 'terminate' | 'cancel';

/**
 * Puts every call on an episode's workflow in the episode's trace, then lets Temporal's OpenTelemetry interceptor
 * carry that trace into the workflow's headers: the start opens the trace (its `mirror.episode` root), and updates
 * and signals made later from anywhere (a tool call, a rollout's activity) join it.
 */
export class EpisodeTraceClientInterceptor implements WorkflowClientInterceptor {
  private readonly otel = new OpenTelemetryWorkflowClientInterceptor();

  startWithDetails: NonNullable<WorkflowClientInterceptor['startWithDetails']> = (input, next) => {
    const episodeId = episodeOfWorkflow(input.options.workflowId);
    const start = () => this.otel.startWithDetails(input, next);
    return episodeId ? traceEpisodeStart(episodeId, { 'mirror.workflow.type': input.workflowType }, start) : start();
  };

  signal = this.joining('signal', (input) => input.workflowExecution.workflowId);
  signalWithStart = this.joining('signalWithStart', (input) => input.options.workflowId);
  startUpdate = this.joining('startUpdate', (input) => input.workflowExecution.workflowId);
  startUpdateWithStart = this.joining('startUpdateWithStart', (input) => input.workflowStartOptions.workflowId);
  query = this.joining('query', (input) => input.workflowExecution.workflowId);
  terminate = this.joining('terminate', (input) => input.workflowExecution.workflowId);
  cancel = this.joining('cancel', (input) => input.workflowExecution.workflowId);

  private joining<M extends Method>(
    method: M,
    workflowIdOf: (input: Parameters<NonNullable<WorkflowClientInterceptor[M]>>[0]) => string | undefined,
  ) {
    type Input = Parameters<NonNullable<WorkflowClientInterceptor[M]>>[0];
    type Output = ReturnType<NonNullable<WorkflowClientInterceptor[M]>>;
    return (input: Input, next: Next<WorkflowClientInterceptor, M>): Output => {
      const otelMethod = this.otel[method] as (input: Input, next: Next<WorkflowClientInterceptor, M>) => Output;
      const call = () => otelMethod.call(this.otel, input, next);
      const episodeId = episodeOfWorkflow(workflowIdOf(input));
      return episodeId ? context.with(episodeContext(episodeId), call) : call();
    };
  }
}

/** The interceptors every Temporal client that starts or drives episodes takes (no-ops while tracing is off). */
export const temporalClientInterceptors = (): ClientInterceptors => ({
  workflow: [new EpisodeTraceClientInterceptor()],
});

/**
 * Workflow spans are made inside the workflow sandbox by OpenTelemetry 1.x and cross into this process as plain
 * objects in 1.x's shape (`parentSpanId`, `instrumentationLibrary`); 2.x exporters read `parentSpanContext` and
 * `instrumentationScope`, without which every workflow span would be exported as a root of its own.
 */
export const workflowSpanShape = (next: SpanProcessor): OpenTelemetryPluginOptions['spanProcessor'] => ({
  // The sink calls only `onEnd`: workflow spans reach this process finished.
  onStart: () => undefined,
  onEnd: (sandboxSpan) => {
    const span = sandboxSpan as unknown as ReadableSpan;
    const legacy = span as ReadableSpan & {
      parentSpanId?: string;
      instrumentationLibrary?: ReadableSpan['instrumentationScope'];
    };
    const own = span.spanContext();
    next.onEnd({
      ...legacy,
      spanContext: () => own,
      parentSpanContext:
        span.parentSpanContext ??
        (legacy.parentSpanId
          ? { traceId: own.traceId, spanId: legacy.parentSpanId, traceFlags: own.traceFlags, isRemote: false }
          : undefined),
      instrumentationScope: span.instrumentationScope ?? legacy.instrumentationLibrary ?? { name: 'temporal' },
    });
  },
  forceFlush: () => next.forceFlush(),
  shutdown: () => next.shutdown(),
});

/** Counts and times every activity the worker runs, by activity type and outcome. */
const activityMetrics: ActivityInterceptorsFactory = (activityContext) => ({
  inbound: {
    execute: async (input, next) => {
      const activity = boundedLabel('activity', activityContext.info.activityType);
      const stop = mirrorMetrics.activityDuration.startTimer({ activity });
      try {
        const result = await next(input);
        stop({ outcome: 'ok' });
        return result;
      } catch (error) {
        stop({ outcome: 'error' });
        mirrorMetrics.errors.inc({ component: 'worker', kind: 'activity' });
        throw error;
      }
    },
  } satisfies ActivityInboundCallsInterceptor,
});

/**
 * What a worker takes to be observable: activity metrics always; with tracing, Temporal's OpenTelemetry plugin
 * (workflow and activity spans in the trace their headers carry, workflow spans exported through the process's
 * span processor).
 */
export const temporalWorkerPlugins = (tracing: Tracing | undefined): WorkerPlugin[] => [
  {
    name: 'mirror-activity-metrics',
    configureWorker: (options) => ({
      ...options,
      interceptors: {
        ...options.interceptors,
        activity: [...(options.interceptors?.activity ?? []), activityMetrics],
      },
    }),
  },
  ...(tracing
    ? [
        new OpenTelemetryPlugin({
          resource: tracing.resource,
          spanProcessor: workflowSpanShape(tracing.spanProcessor),
        }),
      ]
    : []),
];
