import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The process's Prometheus registry: Mirror's own metrics, and Node's when `collectProcessMetrics` is called. */
export const metricsRegistry = new Registry();

/**
 * Mirror's metrics, one set per process (each process is scraped on its own `/metrics`). Labels take only values
 * from a bounded set (`boundedLabel`): an agent names services and tools in its requests, and must not be able to
 * grow a registry without end.
 */
export const mirrorMetrics = {
  episodesStarted: new Counter({
    name: 'mirror_episodes_started_total',
    help: 'Episodes started, by scenario.',
    labelNames: ['scenario'] as const,
    registers: [metricsRegistry],
  }),
  episodesEnded: new Counter({
    name: 'mirror_episodes_ended_total',
    help: 'Episodes ended, by how they ended (the outcome status, or infrastructure_error).',
    labelNames: ['status'] as const,
    registers: [metricsRegistry],
  }),
  toolCalls: new Counter({
    name: 'mirror_tool_calls_total',
    help: "Agents' tool calls through the episode API, by tool and outcome (ok, error, refused).",
    labelNames: ['tool', 'outcome'] as const,
    registers: [metricsRegistry],
  }),
  twinRequestDuration: new Histogram({
    name: 'mirror_twin_request_duration_seconds',
    help: 'Twin requests served by the gateway, by service and status class (2xx, 4xx, 5xx), in seconds.',
    labelNames: ['service', 'status_class'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metricsRegistry],
  }),
  activityDuration: new Histogram({
    name: 'mirror_activity_duration_seconds',
    help: 'Temporal activities the worker ran, by activity type and outcome (ok, error), in seconds.',
    labelNames: ['activity', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [metricsRegistry],
  }),
  errors: new Counter({
    name: 'mirror_errors_total',
    help: 'Errors Mirror answered or met itself (a 5xx, a failed activity, an episode lost to infrastructure).',
    labelNames: ['component', 'kind'] as const,
    registers: [metricsRegistry],
  }),
};

const maxLabelValues = 200;
const seenLabelValues = new Map<string, Set<string>>();

/**
 * `value` while the label has met fewer than 200 distinct values, else `other`; values are cut to 64 characters.
 * Per label name, for the life of the process.
 */
export const boundedLabel = (label: string, value: string): string => {
  const cut = value.slice(0, 64);
  let seen = seenLabelValues.get(label);
  if (!seen) {
    seen = new Set();
    seenLabelValues.set(label, seen);
  }
  if (seen.has(cut)) {
    return cut;
  }
  if (seen.size >= maxLabelValues) {
    return 'other';
  }
  seen.add(cut);
  return cut;
};

/** `2xx`, `4xx`, `5xx` … of an HTTP status. */
export const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

let processMetricsOn = false;

/** Node's own metrics (CPU, memory, event loop lag, GC) in the registry; once per process, by its entry point. */
export const collectProcessMetrics = (): void => {
  if (!processMetricsOn) {
    processMetricsOn = true;
    collectDefaultMetrics({ register: metricsRegistry });
  }
};

/** The registry in Prometheus's text format, with the content type to answer it under. */
export const metricsText = async (): Promise<{ contentType: string; body: string }> => ({
  contentType: metricsRegistry.contentType,
  body: await metricsRegistry.metrics(),
});
