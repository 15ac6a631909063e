import * as fs from 'node:fs';
import * as path from 'node:path';

import { NativeConnection, Worker } from '@temporalio/worker';

import { taskQueues } from '@libs/workflow-contracts';

import { createHealthActivities } from './activities/health.activities';
import { createPersonaActivities } from './activities/persona.activities';

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
}

export const createWorker = (options: WorkerOptions): Promise<Worker> =>
  Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.episodes,
    workflowsPath: require.resolve('./workflows'),
    activities: { ...createHealthActivities(), ...createPersonaActivities() },
    bundlerOptions: {
      webpackConfigHook: (config) => ({
        ...config,
        resolve: { ...config.resolve, alias: { ...(config.resolve?.alias as object), ...libraryAliases() } },
      }),
    },
  });
