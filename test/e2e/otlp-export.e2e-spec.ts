import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { testOperatorKey } from '@test/support/operator-key';
import { createTestDatabase } from '@test/support/test-services';

interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { name: string; traceId: string; parentSpanId?: string }[] }[];
  }[];
}

/** A local OTLP/HTTP collector: every request's path, content type and JSON body. */
const startCollector = async () => {
  const received: { path: string; contentType: string; body: OtlpTraces }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        contentType: request.headers['content-type'] ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces,
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, received, close: () => server.close() };
};

/**
 * Real: the built gateway process with `OTEL_EXPORTER_OTLP_ENDPOINT` set, the installed OTLP/HTTP exporter, PostgreSQL,
 * and a collector listening on a local port (an HTTP server reading what arrives). Mocked: nothing. The exporter
 * loads its transport with a dynamic `import()`, which jest's module sandbox refuses: only a real process shows it.
 */
describe('traces exported over OTLP', () => {
  it("sends a process's spans to the configured collector, under its service name, in the caller's trace", async () => {
    const database = await createTestDatabase();
    const collector = await startCollector();
    const child = spawn(process.execPath, [path.join(repositoryRoot, 'dist', 'apps', 'gateway', 'src', 'main.js')], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        GATEWAY_PORT: '0',
        MIRROR_OPERATOR_KEY: testOperatorKey,
        // The collector's base, as OpenTelemetry's variable means it (a trailing slash too).
        OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.endpoint}/`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const onData = (chunk: Buffer): void => {
          output += chunk.toString();
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (found) {
            resolve(found[1]);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        void exited.then((code) => reject(new Error(`gateway exited with ${code}: ${output}`)));
      });
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parent = '00f067aa0ba902b7';
      const answer = await fetch(`${base}/e/no-such-episode/procurement/items`, {
        headers: { traceparent: `00-${traceId}-${parent}-01` },
      });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      await answer.text();
      // Stopping flushes the batch on the way out, as a deployment's rollout stops it.
      child.kill('SIGTERM');
      expect(await exited).toBe(0);

      expect(collector.received.length).toBeGreaterThan(0);
      expect(collector.received.every((r) => r.path === '/v1/traces')).toBe(true);
      expect(collector.received[0].contentType).toMatch(/^application\/json/);
      const resources = collector.received.flatMap((r) => r.body.resourceSpans);
      expect(resources[0].resource.attributes).toContainEqual({
        key: 'service.name',
        value: { stringValue: 'mirror-gateway' },
      });
      const spans = resources.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      expect(spans).toContainEqual(
        expect.objectContaining({ name: 'twin GET procurement', traceId, parentSpanId: parent }),
      );
    } finally {
      child.kill('SIGKILL');
      collector.close();
      await database.drop();
    }
  });
});
