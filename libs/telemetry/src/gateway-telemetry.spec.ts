import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';

import { episodeTraceIds } from './episode-trace';
import { observeGateway } from './gateway-telemetry';
import { metricsRegistry } from './metrics';
import { startTracing, Tracing } from './tracing';

/** A stand-in for the gateway's own listener: answers by path, as any request listener would. */
const answering = (): Server =>
  createServer((request, response) => {
    const status = request.url?.includes('missing') ? 404 : request.url?.includes('broken') ? 500 : 200;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end('{}');
  });

const twinCount = async (service: string, statusClass: string): Promise<number> => {
  const text = await metricsRegistry.getSingleMetricAsString('mirror_twin_request_duration_seconds');
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`mirror_twin_request_duration_seconds_count{service="${service}",status_class="${statusClass}"}`),
    );
  return line ? Number(line.split(' ').pop()) : 0;
};

describe(observeGateway.name, () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    tracing = startTracing({ serviceName: 'test', exporter, immediate: true });
    server = observeGateway(answering(), { tenantId: 'tenant-a', metricsKey: 'metrics-key-of-sixteen' });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await tracing.stop();
  });
  beforeEach(() => exporter.reset());

  const spanOf = async (response: Response) => {
    await response.text();
    // The span ends when the response closes, just after the client has read it.
    for (let i = 0; i < 50 && exporter.getFinishedSpans().length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return exporter.getFinishedSpans()[0];
  };

  it("makes a twin request without a traceparent a child of its episode's root", async () => {
    const span = await spanOf(await fetch(`${base}/e/ep-1/records/invoices?limit=1`));
    expect(span.name).toBe('twin GET records');
    expect(span.spanContext().traceId).toBe(episodeTraceIds('ep-1').traceId);
    expect(span.parentSpanContext?.spanId).toBe(episodeTraceIds('ep-1').spanId);
    expect(span.attributes).toMatchObject({
      'mirror.episode.id': 'ep-1',
      'mirror.tenant.id': 'tenant-a',
      'http.response.status_code': 200,
    });
  });

  it("makes the caller's traceparent the parent, and marks a 5xx failed", async () => {
    const given = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
    const span = await spanOf(await fetch(`${base}/e/ep-1/records/broken`, { headers: { traceparent: given } }));
    expect(span.spanContext().traceId).toBe('1'.repeat(32));
    expect(span.parentSpanContext?.spanId).toBe('2'.repeat(16));
    expect(span.status.code).toBe(2);
  });

  it('times twin requests by service and status class', async () => {
    const before = [await twinCount('mail', '2xx'), await twinCount('mail', '4xx')];
    await (await fetch(`${base}/e/ep-2/mail/messages`)).text();
    await (await fetch(`${base}/e/ep-2/mail/missing`)).text();
    await (await fetch(`${base}/e/ep-2/mail/missing`)).text();
    expect([await twinCount('mail', '2xx'), await twinCount('mail', '4xx')]).toEqual([before[0] + 1, before[1] + 2]);
  });

  it('serves /metrics only to the holder of the key, in Prometheus text', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const scraped = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer metrics-key-of-sixteen' } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/^# HELP mirror_/m);
  });
});
