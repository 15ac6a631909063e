import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { INestApplication } from '@nestjs/common';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';

import { localUser } from '@libs/access';
import { episodeApiOf } from '@libs/episode-api';
import { mountEpisodeProtocols } from '@libs/episode-protocols';
import { EpisodeHost, startEpisodeHost, trialResultOf } from '@libs/episode-host';
import { LiveEpisodeRegistry } from '@libs/live-episodes';
import { StackModel } from '@libs/stack-ingestion';
import {
  currentTracing,
  episodeTraceIds,
  JsonLogger,
  startTracing,
  temporalWorkerPlugins,
  Tracing,
} from '@libs/telemetry';
import { createRolloutWorker } from '@libs/episode-worker';
import { RolloutRepository } from '@libs/persistence';
import { referenceAgents } from '@libs/reference-agents';
import type { RolloutPlan, RolloutReport } from '@libs/rollouts';
import { rolloutTaskQueue, rolloutWorkflowId, rolloutWorkflowType } from '@libs/workflow-contracts';
import { repositoryRoot } from '@test/support/cli-runner';
import { testInstanceKey } from '@test/support/instance-key';
import { testOperatorKey } from '@test/support/operator-key';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';
import { ingestedOnce } from '@test/support/run-cache';

/** Prometheus's text format: `name{label="value",…} number` per sample line. */
const parseMetrics = (text: string): { name: string; labels: Record<string, string>; value: number }[] =>
  text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) {
        throw new Error(`not a Prometheus sample line: ${line}`);
      }
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1], labels, value: Number(match[3]) };
    });

const sample = (samples: ReturnType<typeof parseMetrics>, name: string, labels: Record<string, string>): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0);

const chatCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

const traceparent = (traceId: string, spanId: string): string => `00-${traceId}-${spanId}-01`;

/**
 * Real: PostgreSQL, the Temporal dev server, the episode host (twins behind the gateway, the worker with Temporal's
 * OpenTelemetry plugin), the episode API over HTTP and the clinic example. Spans go to an in-memory exporter; metrics
 * are scraped over HTTP and parsed; log lines are read from stdout. Mocked: nothing.
 */
describe('episode telemetry', () => {
  const exporter = new InMemorySpanExporter();
  const logLines: Record<string, unknown>[] = [];
  let writeSpy: jest.SpyInstance;
  let tracing: Tracing;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let host: EpisodeHost;
  let served: { app: INestApplication; registry: LiveEpisodeRegistry };
  let api: string;
  let model: StackModel;
  let version: string;

  beforeAll(async () => {
    const write = process.stdout.write.bind(process.stdout);
    writeSpy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      for (const line of text.split('\n').filter((l) => l.startsWith('{'))) {
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      }
      return write(chunk);
    });
    tracing = startTracing({ serviceName: 'mirror-test', exporter, immediate: true });
    database = await createTestDatabase();
    Object.assign(process.env, {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_INSTANCE_KEY: testInstanceKey,
      MIRROR_OPERATOR_KEY: testOperatorKey,
      MIRROR_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-telemetry-')),
    });
    const folder = path.join(repositoryRoot, 'examples', 'clinic-network');
    ({ model, version } = await ingestedOnce(folder));
    host = await startEpisodeHost(
      [{ id: 'clinic-network', path: folder, model, version }],
      { log: () => undefined },
      { tracing },
    );
    served = await episodeApiOf(
      host,
      [(app, port, admit) => mountEpisodeProtocols(app, port, admit)],
      new JsonLogger(),
      localUser(host.config.MIRROR_TENANT),
    );
    await served.app.listen(0, '127.0.0.1');
    api = (await served.app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await served?.app.close();
    await served?.registry.close();
    await host?.stop();
    await database?.drop();
    await tracing?.stop();
    writeSpy?.mockRestore();
  });

  const post = async (route: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const startEpisode = async (headers: Record<string, string> = {}) => {
    const created = await post('/v1/episodes', { environment: 'clinic-network', task: 'invoice-dispute@3' }, headers);
    expect(created.status).toBe(201);
    const {
      episode_id: id,
      token,
      tools,
    } = created.body as { episode_id: string; token: string; tools: { name: string }[] };
    const lookup = tools.find((t) => /^records_.*invoices$/.test(t.name))!.name;
    const call = (calls: unknown[], extra: Record<string, string> = {}) =>
      post(`/v1/episodes/${id}/tool_calls`, { tool_calls: calls }, { authorization: `Bearer ${token}`, ...extra });
    return { id, token, lookup, call };
  };

  /** Spans arrive from the workflow sandbox when its tasks complete: wait until `ready` holds of them. */
  const spansWhen = async (ready: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> => {
    const deadline = Date.now() + 120_000;
    while (!ready(exporter.getFinishedSpans())) {
      if (Date.now() > deadline) {
        throw new Error(
          `spans never got there: ${exporter
            .getFinishedSpans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return exporter.getFinishedSpans();
  };

  let plainEpisode: string;

  it("puts one episode's api, gateway, workflow and activity spans in one trace, drawn from its id", async () => {
    const { id, token, lookup, call } = await startEpisode();
    plainEpisode = id;
    expect((await call([chatCall('c1', 'wait_for_events', { business_days: 1 })])).status).toBe(200);
    expect((await call([chatCall('c2', lookup, { limit: 5 })])).status).toBe(200);
    expect((await post(`/v1/episodes/${id}/grade`, {}, { authorization: `Bearer ${token}` })).status).toBe(200);

    const { traceId } = episodeTraceIds(id);
    const spans = await spansWhen((all) => {
      const names = all.filter((s) => s.spanContext().traceId === traceId).map((s) => s.name);
      return ['RunWorkflow', 'RunActivity', 'HandleUpdate'].every((n) => names.some((name) => name.startsWith(n)));
    });
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const names = inTrace.map((s) => s.name);
    // The root, the api's tool calls, the Temporal client's start and updates, the workflow and its activities, and
    // the gateway's twin requests (from the agent's tool and from the personas' activities).
    expect(names).toEqual(
      expect.arrayContaining([
        'mirror.episode',
        'StartWorkflow:episodeWorkflow',
        'RunWorkflow:episodeWorkflow',
        `mirror.tool_call ${lookup}`,
        'mirror.tool_call wait_for_events',
        'POST /v1/episodes/:id/tool_calls',
        'twin GET records',
      ]),
    );
    expect(names.some((n) => n.startsWith('StartWorkflowUpdate:'))).toBe(true);
    expect(names.some((n) => n.startsWith('RunActivity:'))).toBe(true);
    const root = inTrace.find((s) => s.name === 'mirror.episode')!;
    expect(root.spanContext().spanId).toBe(episodeTraceIds(id).spanId);
    expect(root.parentSpanContext).toBeUndefined();
    // Every span naming the episode is in its trace, and every span of the trace hangs from a span of the trace.
    expect(
      spans.filter((s) => s.attributes['mirror.episode.id'] === id).every((s) => s.spanContext().traceId === traceId),
    ).toBe(true);
    const ids = new Set(inTrace.map((s) => s.spanContext().spanId));
    const orphans = inTrace.filter((s) => s !== root && !ids.has(s.parentSpanContext?.spanId ?? ''));
    expect(orphans.map((s) => s.name)).toEqual([]);
    // A twin request a persona's activity made is the activity's child: the trace crossed worker → gateway.
    const activityIds = new Set(
      inTrace.filter((s) => s.name.startsWith('RunActivity:')).map((s) => s.spanContext().spanId),
    );
    expect(inTrace.some((s) => s.name.startsWith('twin ') && activityIds.has(s.parentSpanContext?.spanId ?? ''))).toBe(
      true,
    );
  });

  it("honours an agent's traceparent: its trace parents the episode, and a call's own traceparent parents the call", async () => {
    const agentTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const agentSpan = '00f067aa0ba902b7';
    const { id, token, lookup, call } = await startEpisode({ traceparent: traceparent(agentTrace, agentSpan) });
    expect((await call([chatCall('c1', lookup, { limit: 1 })])).status).toBe(200);
    const otherTrace = 'a'.repeat(31) + '1';
    const otherSpan = 'b'.repeat(15) + '2';
    expect(
      (await call([chatCall('c2', lookup, { limit: 2 })], { traceparent: traceparent(otherTrace, otherSpan) })).status,
    ).toBe(200);
    const direct = await fetch(`${host.gatewayUrl}/e/${id}/records/invoices`, {
      headers: { traceparent: traceparent('c'.repeat(31) + '3', 'd'.repeat(15) + '4') },
    });
    expect(direct.status).toBeGreaterThanOrEqual(400);
    await direct.text();
    expect((await post(`/v1/episodes/${id}/grade`, {}, { authorization: `Bearer ${token}` })).status).toBe(200);

    const spans = await spansWhen((all) =>
      all.some((s) => s.spanContext().traceId === agentTrace && s.name.startsWith('RunWorkflow')),
    );
    const root = spans.find((s) => s.name === 'mirror.episode' && s.attributes['mirror.episode.id'] === id)!;
    expect(root.spanContext().traceId).toBe(agentTrace);
    expect(root.parentSpanContext?.spanId).toBe(agentSpan);
    const toolSpans = spans.filter(
      (s) => s.name === `mirror.tool_call ${lookup}` && s.attributes['mirror.episode.id'] === id,
    );
    // The first call came without a traceparent: it joins the agent-parented episode trace this process remembers.
    expect(toolSpans.map((s) => s.spanContext().traceId).sort()).toEqual([agentTrace, otherTrace].sort());
    const request = spans.find(
      (s) => s.spanContext().traceId === otherTrace && s.name === 'POST /v1/episodes/:id/tool_calls',
    )!;
    expect(request.parentSpanContext?.spanId).toBe(otherSpan);
    const gateway = spans.find(
      (s) => s.name === 'twin GET records' && s.spanContext().traceId === 'c'.repeat(31) + '3',
    )!;
    expect(gateway.parentSpanContext?.spanId).toBe('d'.repeat(15) + '4');
    expect(
      spans.some((s) => s.spanContext().traceId === agentTrace && s.name === 'StartWorkflow:episodeWorkflow'),
    ).toBe(true);
  });

  it("traces the protocols' requests: MCP in the episode's trace, OpenEnv's in the caller's with its tool calls linked", async () => {
    const { id, token, lookup } = await startEpisode();
    const mcp = new McpClient({ name: 'telemetry-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${api}/v1/episodes/${id}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    await mcp.callTool({ name: lookup, arguments: { limit: 1 } });
    await mcp.close();

    const reset = await post('/openenv/clinic-network/reset', { task: 'invoice-dispute@4' });
    expect(reset.status).toBe(200);
    const opened = (reset.body as { metadata: { episode_id: string; token: string } }).metadata;
    const callerTrace = 'e'.repeat(31) + '5';
    const callerSpan = 'f'.repeat(15) + '6';
    const step = await post(
      '/openenv/clinic-network/step',
      { episode_id: opened.episode_id, action: { type: 'call_tool', tool_name: lookup, arguments: { limit: 1 } } },
      { authorization: `Bearer ${opened.token}`, traceparent: traceparent(callerTrace, callerSpan) },
    );
    expect(step.status).toBe(200);

    const episodeTrace = episodeTraceIds(id).traceId;
    const spans = await spansWhen((all) =>
      all.some((s) => s.name === 'POST /openenv/:env/step' && s.spanContext().traceId === callerTrace),
    );
    // MCP: its requests are spans of the episode's trace, and the tool call is the child of one of them.
    const mcpRequests = spans.filter(
      (s) => s.name === 'POST /v1/episodes/:id/mcp' && s.attributes['mirror.episode.id'] === id,
    );
    expect(mcpRequests.length).toBeGreaterThan(0);
    expect(mcpRequests.every((s) => s.spanContext().traceId === episodeTrace)).toBe(true);
    const mcpCall = spans.find(
      (s) => s.name === `mirror.tool_call ${lookup}` && s.attributes['mirror.episode.id'] === id,
    )!;
    expect(mcpRequests.map((s) => s.spanContext().spanId)).toContain(mcpCall.parentSpanContext?.spanId);
    // OpenEnv: the step is a span of the caller's trace; the tool call it made is in the episode's, linked to it.
    const stepSpan = spans.find((s) => s.name === 'POST /openenv/:env/step')!;
    expect(stepSpan.parentSpanContext?.spanId).toBe(callerSpan);
    const stepCall = spans.find(
      (s) => s.name === `mirror.tool_call ${lookup}` && s.attributes['mirror.episode.id'] === opened.episode_id,
    )!;
    expect(stepCall.spanContext().traceId).toBe(episodeTraceIds(opened.episode_id).traceId);
    expect(stepCall.links.map((l) => l.context.spanId)).toEqual([stepSpan.spanContext().spanId]);
    expect(spans.some((s) => s.name === 'POST /openenv/:env/reset')).toBe(true);
  });

  it("traces a rollout: its workflow and trial in one trace, the trial's episode linked to the trial", async () => {
    const environment = host.environments.get('clinic-network')!;
    const scenario = model.scenarios.find((s) => s.scenario.id === 'invoice-dispute')!;
    const worker = await createRolloutWorker({
      connection: host.temporal.connection,
      namespace: host.temporal.namespace,
      tenantId: host.config.MIRROR_TENANT,
      stackVersion: version,
      store: new RolloutRepository(host.dataSource),
      play: async ({ task }) =>
        trialResultOf(await host.play(environment, scenario, Number(task.split('@')[1]), referenceAgents.get('idle')!)),
      plugins: temporalWorkerPlugins(currentTracing()),
    });
    const plan: RolloutPlan = {
      id: randomUUID(),
      stackVersion: version,
      bundle: 'clinic-network',
      agent: 'idle',
      tasks: ['invoice-dispute@5'],
      trials: 1,
      concurrency: 1,
    };
    const report = await worker.runUntil(
      host.temporal.client.workflow.execute(rolloutWorkflowType, {
        args: [{ ...plan, tenantId: host.config.MIRROR_TENANT }],
        taskQueue: rolloutTaskQueue(version),
        workflowId: rolloutWorkflowId(plan.id),
      }) as Promise<RolloutReport>,
    );
    expect(report.overall.episodes).toBe(1);
    const [{ episode_id: episodeId }] = await host.dataSource.query<{ episode_id: string }[]>(
      'SELECT episode_id FROM rollout_episodes WHERE rollout_id = $1',
      [plan.id],
    );

    const spans = await spansWhen((all) => all.some((s) => s.name === 'RunActivity:playTrial'));
    const trial = spans.find((s) => s.name === 'RunActivity:playTrial')!;
    const rolloutTrace = spans
      .filter((s) => s.spanContext().traceId === trial.spanContext().traceId)
      .map((s) => s.name);
    expect(rolloutTrace).toEqual(expect.arrayContaining(['RunWorkflow:rolloutWorkflow', 'StartActivity:playTrial']));
    // The episode keeps a trace of its own (drawn from its id), linked to the trial that played it.
    const root = spans.find((s) => s.name === 'mirror.episode' && s.attributes['mirror.episode.id'] === episodeId)!;
    expect(root.spanContext().traceId).toBe(episodeTraceIds(episodeId).traceId);
    expect(root.links.map((l) => l.context.spanId)).toContain(trial.spanContext().spanId);
  });

  it('counts episodes, tool calls, twin requests and activities on /metrics, for the operator only', async () => {
    // Agents call the episode API: its metrics span every episode and are the operator's only.
    expect((await fetch(`${api}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${api}/metrics`, { headers: { authorization: `Bearer ${testOperatorKey}` } });
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
    const samples = parseMetrics(await scraped.text());
    expect(sample(samples, 'mirror_episodes_started_total', { scenario: 'invoice-dispute' })).toBeGreaterThanOrEqual(2);
    expect(sample(samples, 'mirror_episodes_ended_total', {})).toBeGreaterThanOrEqual(2);
    expect(
      sample(samples, 'mirror_tool_calls_total', { tool: 'wait_for_events', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(samples, 'mirror_activity_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);

    expect((await fetch(`${host.gatewayUrl}/metrics`)).status).toBe(401);
    const gateway = await fetch(`${host.gatewayUrl}/metrics`, {
      headers: { authorization: `Bearer ${testOperatorKey}` },
    });
    expect(gateway.status).toBe(200);
    const fromGateway = parseMetrics(await gateway.text());
    const records2xx = { service: 'records', status_class: '2xx' };
    expect(sample(fromGateway, 'mirror_twin_request_duration_seconds_count', records2xx)).toBeGreaterThanOrEqual(3);
    expect(
      sample(fromGateway, 'mirror_twin_request_duration_seconds_count', { service: 'records', status_class: '4xx' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(fromGateway, 'mirror_twin_request_duration_seconds_bucket', { ...records2xx, le: '+Inf' })).toBe(
      sample(fromGateway, 'mirror_twin_request_duration_seconds_count', records2xx),
    );
  });

  it("writes JSON log lines that carry the episode, its tenant and the episode's trace", () => {
    const ended = logLines.find(
      (line) => line.episodeId === plainEpisode && String(line.message).startsWith('episode ended'),
    );
    expect(ended).toMatchObject({
      level: 'log',
      context: 'episodes',
      episodeId: plainEpisode,
      tenantId: 'default',
      traceId: episodeTraceIds(plainEpisode).traceId,
    });
    expect(
      logLines.some((line) => line.episodeId === plainEpisode && String(line.message).startsWith('episode started')),
    ).toBe(true);
  });
});
