import * as fs from 'node:fs';
import * as path from 'node:path';

import { temporal as protoRoot } from '@temporalio/proto';
import {
  BundleOptions,
  bundleWorkflowCode,
  Logger,
  NativeConnection,
  Runtime,
  Worker,
  WorkerPlugin,
} from '@temporalio/worker';

import { MirrorConfig } from '@libs/config';
import type { VoiceSettings } from '@libs/personas';
import { taskQueues } from '@libs/workflow-contracts';

import { createHealthActivities } from './activities/health.activities';
import { createPartyTurnActivities } from './activities/party-turn.activities';
import { createPersonaActivities } from './activities/persona.activities';
import { createReactionActivities } from './activities/reaction.activities';

/** The repository root, found from wherever this file runs (sources under jest, dist/ in production). */
const repositoryRoot = (): string => {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'nest-cli.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`cannot find the repository root above ${__dirname}`);
    }
    dir = parent;
  }
  return dir;
};

/** Workflow code is bundled by webpack, which must map our path aliases itself (tsc-alias only rewrites dist/). */
const libraryAliases = (): Record<string, string> => {
  const libs = path.join(repositoryRoot(), 'libs');
  return Object.fromEntries(fs.readdirSync(libs).map((name) => [`@libs/${name}`, path.join(libs, name, 'src')]));
};

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue?: string;
  /** An LLM voice for personas; they speak from templates without one. */
  voice?: VoiceSettings;
  /** The gateway's operator key: personas' tokens and the episode's clock and setup are the operator's to ask for. */
  operatorKey: string;
  /** Plugins the worker runs with (`@libs/telemetry`'s `temporalWorkerPlugins`: tracing and activity metrics). */
  plugins?: WorkerPlugin[];
  /** Episodes this worker is expected to run at once (a deployment's worker: unset, the SDK's defaults). */
  episodesAtOnce?: number;
  /** A file of the workflow code bundled beforehand (a test run bundles the sources once for all its workers). */
  workflowBundle?: string;
}

/**
 * Slots and cache for `episodes` running at once. Every open episode stays in the sticky cache (one pushed out
 * replays its whole history on its next task); each has at most one workflow task and a few activities in flight.
 */
export const workerCapacity = (episodes: number) => ({
  maxCachedWorkflows: Math.max(100, 2 * episodes),
  maxConcurrentWorkflowTaskExecutions: Math.max(40, episodes),
  maxConcurrentActivityTaskExecutions: Math.max(100, 4 * episodes),
});

/** The persona voice the configuration names, if any. */
export const voiceFromConfig = (config: MirrorConfig): VoiceSettings | undefined =>
  config.MIRROR_PERSONA_LLM_URL
    ? {
        url: config.MIRROR_PERSONA_LLM_URL,
        model: config.MIRROR_PERSONA_LLM_MODEL,
        ...(config.MIRROR_PERSONA_LLM_KEY ? { apiKey: config.MIRROR_PERSONA_LLM_KEY } : {}),
        cacheDir: path.join(config.MIRROR_DATA_DIR, 'persona-voice'),
      }
    : undefined;

type WebpackConfiguration = Parameters<NonNullable<NonNullable<BundleOptions['webpackConfigHook']>>>[0];

/** Workflow code and its bundling, shared by live workers and history replays. */
export const workflowBundling = () => ({
  workflowsPath: require.resolve('./workflows'),
  bundlerOptions: {
    webpackConfigHook: (config: WebpackConfiguration) => ({
      ...config,
      resolve: { ...config.resolve, alias: { ...(config.resolve?.alias as object), ...libraryAliases() } },
    }),
  },
});

/** Where `npm run build` leaves the workflow code bundled: beside this file in dist/ (`bundle-workflows.ts`). */
export const prebuiltWorkflowBundle = path.join(__dirname, 'workflow-bundle.js');

/** The newest compiled file the workflow code can be made of: dist's libraries (where this file runs) and twins. */
const newestLibraryFile = (): number => {
  let newest = 0;
  const visit = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        visit(full);
      } else if (entry.name.endsWith('.js') && full !== prebuiltWorkflowBundle) {
        newest = Math.max(newest, fs.statSync(full).mtimeMs);
      }
    }
  };
  const libraries = path.resolve(__dirname, '..', '..');
  for (const dir of [libraries, path.join(path.dirname(libraries), 'twins')].filter((dir) => fs.existsSync(dir))) {
    visit(dir);
  }
  return newest;
};

let bundledHere: Promise<{ code: string }> | undefined;

/**
 * The workflow code a worker of this process runs. webpack takes seconds of CPU per bundle, and every process that
 * plays episodes made one per worker (a rollout has two): the build's bundle is taken when it is newer than every
 * compiled library (a stale one, after a partial rebuild, is never run), else the code is bundled once per process.
 * A plugin that adds workflow modules (tracing's interceptors) needs them bundled in: that worker bundles its own.
 */
export const workflowCode = async (
  plugins: WorkerPlugin[] = [],
  bundle?: string,
): Promise<{ workflowBundle: { code: string } | { codePath: string } } | ReturnType<typeof workflowBundling>> => {
  if (plugins.some((plugin) => 'configureBundler' in plugin)) {
    return workflowBundling();
  }
  if (bundle !== undefined) {
    return { workflowBundle: { codePath: bundle } };
  }
  if (fs.existsSync(prebuiltWorkflowBundle) && fs.statSync(prebuiltWorkflowBundle).mtimeMs >= newestLibraryFile()) {
    return { workflowBundle: { codePath: prebuiltWorkflowBundle } };
  }
  bundledHere ??= bundleWorkflows();
  return { workflowBundle: await bundledHere };
};

/** The workflow code bundled as `workflowBundling()` has a worker bundle it (with no plugin adding modules). */
export const bundleWorkflows = async (logger: Logger = Runtime.instance().logger): Promise<{ code: string }> => {
  const { workflowsPath, bundlerOptions } = workflowBundling();
  const { code } = await bundleWorkflowCode({ workflowsPath, ...bundlerOptions, logger });
  return { code };
};

/**
 * Replays a recorded workflow history (Temporal's JSON) against today's workflow code: throws on any nondeterminism.
 * The JSON is read with @temporalio/proto's own message types: the SDK's `historyFromJSON` fails when npm installs two
 * copies of protobufjs (one under @temporalio/common), as it does here.
 */
export const replayHistory = (history: unknown, workflowId: string): Promise<void> =>
  Worker.runReplayHistory(
    workflowBundling(),
    protoRoot.api.history.v1.History.fromObject(wellKnownTypes(history) as Record<string, unknown>),
    workflowId,
  );

/** Proto3 JSON writes timestamps and durations as text (`2026-…Z`, `10s`); message objects want seconds and nanos. */
const wellKnownTypes = (value: unknown): unknown => {
  if (Array.isArray(value)) {
    return value.map(wellKnownTypes);
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, wellKnownTypes(inner)]));
  }
  if (typeof value === 'string') {
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value)) {
      const fraction = /\.(\d+)Z$/.exec(value)?.[1] ?? '';
      return { seconds: Math.floor(Date.parse(value) / 1000), nanos: Number(fraction.padEnd(9, '0').slice(0, 9)) };
    }
    if (/^-?\d+(\.\d+)?s$/.test(value)) {
      const seconds = Number(value.slice(0, -1));
      return { seconds: Math.trunc(seconds), nanos: Math.round((seconds - Math.trunc(seconds)) * 1e9) };
    }
  }
  return value;
};

export const createWorker = async (options: WorkerOptions): Promise<Worker> => {
  const persona = createPersonaActivities(options.operatorKey, options.voice);
  const reactions = createReactionActivities(options.operatorKey, options.voice);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.episodes,
    ...(options.episodesAtOnce !== undefined ? workerCapacity(options.episodesAtOnce) : {}),
    activities: {
      ...createHealthActivities(),
      ...persona,
      ...reactions,
      ...createPartyTurnActivities(options.operatorKey, persona, reactions),
    },
    ...(await workflowCode(options.plugins, options.workflowBundle)),
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
};
