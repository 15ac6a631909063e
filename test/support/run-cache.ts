import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { ingestStack, StackModel } from '@libs/stack-ingestion';

/**
 * A folder the global setup makes for one run (and the teardown removes): what every test file would otherwise make
 * again for itself is made there once. Unset outside a run's global setup: each file then makes its own.
 */
export const runCacheVariable = 'MIRROR_TEST_RUN_CACHE';

const runCache = (): string | undefined => process.env[runCacheVariable];

/** Where the global setup bundles the workflow code from the sources. */
export const workflowBundleFile = (cache: string): string => path.join(cache, 'workflow-bundle.js');

/**
 * The run's workflow bundle, for a worker a test file starts (`createWorker`'s `workflowBundle`): webpack once per run
 * rather than once per worker.
 */
export const testWorkflowBundle = (): { workflowBundle: string } | Record<string, never> => {
  const cache = runCache();
  return cache ? { workflowBundle: workflowBundleFile(cache) } : {};
};

/**
 * A bundle folder's stack as `ingestStack` gives it, ingested once per run by the first file that asks and read back
 * by the others (seconds of CPU each for a real spec; the model is plain JSON, as the stack repository stores it).
 * For test files that need a stack to play on; tests of ingestion itself call `ingestStack`.
 */
export const ingestedOnce = async (folder: string): Promise<{ model: StackModel; version: string }> => {
  const cache = runCache();
  const file =
    cache && path.join(cache, `stack-${createHash('sha256').update(folder).digest('hex').slice(0, 16)}.json`);
  if (file && fs.existsSync(file)) {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as { model: StackModel; version: string };
  }
  const { model, version } = await ingestStack({ kind: 'path', path: folder });
  if (file) {
    // Written whole under another name, then renamed: a file reading it meanwhile sees all of it or nothing.
    fs.writeFileSync(`${file}.${process.pid}`, JSON.stringify({ model, version }));
    fs.renameSync(`${file}.${process.pid}`, file);
  }
  return { model, version };
};
