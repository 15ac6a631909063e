import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';

import { tracingFromConfig } from './tracing';

describe(tracingFromConfig.name, () => {
  it('records nothing unless an endpoint or an exporter is given', () => {
    expect(tracingFromConfig({}, 'mirror-test')).toBeUndefined();
    const span = trace.getTracer('test').startSpan('unrecorded');
    expect(span.isRecording()).toBe(false);
    span.end();
  });

  it('exports spans under the configured service name when given an exporter, and stops cleanly', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = tracingFromConfig({ OTEL_SERVICE_NAME: 'mirror-gateway-eu' }, 'mirror-gateway', exporter)!;
    trace.getTracer('test').startSpan('recorded').end();
    await tracing.spanProcessor.forceFlush();
    const [span] = exporter.getFinishedSpans();
    expect(span.resource.attributes['service.name']).toBe('mirror-gateway-eu');
    await tracing.stop();
    expect(trace.getTracer('test').startSpan('after').isRecording()).toBe(false);
  });
});
