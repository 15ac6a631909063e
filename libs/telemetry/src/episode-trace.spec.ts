import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';

import { callerTraced, episodeContext, episodeTraceIds, inEpisodeSpan, traceEpisodeStart } from './episode-trace';
import { traceContextOf, traceHeadersFor } from './trace-headers';
import { startTracing, Tracing } from './tracing';

describe('episode traces', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;

  beforeAll(() => {
    tracing = startTracing({ serviceName: 'test', exporter, immediate: true });
  });
  afterAll(() => tracing.stop());
  beforeEach(() => exporter.reset());

  it('draws a valid, stable trace and root span id from the episode id, different per episode', () => {
    const ids = episodeTraceIds('7d0e4f5a-0000-4000-8000-000000000001');
    expect(ids).toEqual(episodeTraceIds('7d0e4f5a-0000-4000-8000-000000000001'));
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(episodeTraceIds('7d0e4f5a-0000-4000-8000-000000000002').traceId).not.toBe(ids.traceId);
  });

  it('opens an episode without a caller trace as a root whose ids any process can compute', async () => {
    const episodeId = 'episode-without-caller';
    const inside = await traceEpisodeStart(episodeId, { 'mirror.scenario': 's' }, () =>
      Promise.resolve(trace.getSpanContext(context.active())),
    );
    const [root] = exporter.getFinishedSpans();
    expect(root.name).toBe('mirror.episode');
    expect(root.spanContext()).toMatchObject(episodeTraceIds(episodeId));
    expect(root.parentSpanContext).toBeUndefined();
    expect(inside?.spanId).toBe(root.spanContext().spanId);
    // Work on the episode later, from outside its trace, joins it.
    expect(trace.getSpanContext(episodeContext(episodeId, ROOT_CONTEXT))).toMatchObject(episodeTraceIds(episodeId));
  });

  it("makes an agent's traceparent the parent of the episode's root, and later work joins that trace", async () => {
    const agentTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const given = traceContextOf({ traceparent: `00-${agentTrace}-00f067aa0ba902b7-01` });
    await context.with(given, () => traceEpisodeStart('agent-parented', {}, () => Promise.resolve()));
    const [root] = exporter.getFinishedSpans();
    expect(root.spanContext().traceId).toBe(agentTrace);
    expect(root.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    const later = trace.getSpanContext(episodeContext('agent-parented', ROOT_CONTEXT));
    expect(later).toMatchObject({ traceId: agentTrace, spanId: root.spanContext().spanId });
    expect(traceHeadersFor('agent-parented').traceparent).toBe(`00-${agentTrace}-${root.spanContext().spanId}-01`);
  });

  it('links, but does not parent, an episode started by local work (a rollout activity) to that work', async () => {
    const tracer = trace.getTracer('test');
    const activity = tracer.startSpan('activity');
    await context.with(trace.setSpan(ROOT_CONTEXT, activity), () =>
      traceEpisodeStart('started-by-rollout', {}, () => Promise.resolve()),
    );
    activity.end();
    const root = exporter.getFinishedSpans().find((span) => span.name === 'mirror.episode')!;
    expect(root.spanContext().traceId).toBe(episodeTraceIds('started-by-rollout').traceId);
    expect(root.links.map((link) => link.context.spanId)).toEqual([activity.spanContext().spanId]);
  });

  it('keeps the current span when it is already in the episode trace, and ignores a malformed traceparent', () => {
    const tracer = trace.getTracer('test');
    const inEpisode = tracer.startSpan('tool call', {}, episodeContext('kept', ROOT_CONTEXT));
    const current = trace.setSpan(ROOT_CONTEXT, inEpisode);
    expect(trace.getSpanContext(episodeContext('kept', current))?.spanId).toBe(inEpisode.spanContext().spanId);
    inEpisode.end();
    for (const traceparent of ['00-zz-00f067aa0ba902b7-01', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, 'garbage']) {
      expect(trace.getSpanContext(traceContextOf({ traceparent }))).toBeUndefined();
    }
  });

  it('keeps the trace a caller named for its request, and puts spans of work on the episode there', async () => {
    const given = callerTraced(traceContextOf({ traceparent: `00-${'5'.repeat(32)}-${'6'.repeat(16)}-01` }));
    expect(trace.getSpanContext(episodeContext('named', given))?.traceId).toBe('5'.repeat(32));
    await context.with(given, () => inEpisodeSpan('named', 'mirror.tool_call t', {}, () => Promise.resolve()));
    const [span] = exporter.getFinishedSpans();
    expect(span.parentSpanContext?.spanId).toBe('6'.repeat(16));
    // Without the mark, work from another trace goes to the episode's own.
    await inEpisodeSpan('named', 'mirror.tool_call u', {}, () => Promise.resolve());
    expect(exporter.getFinishedSpans()[1].spanContext().traceId).toBe(episodeTraceIds('named').traceId);
  });

  it('fails the root span when the start fails, and rethrows', async () => {
    await expect(
      traceEpisodeStart('failing', {}, () => Promise.reject(new Error('temporal unreachable'))),
    ).rejects.toThrow('temporal unreachable');
    expect(exporter.getFinishedSpans()[0].status).toMatchObject({ code: 2, message: 'temporal unreachable' });
  });
});
