import * as fs from 'node:fs';
import * as path from 'node:path';

import { InvalidArgumentError, Option } from 'commander';

import type { StackModel } from '@libs/stack-ingestion';
import { UsageError } from '@cli/cli-output';

/** `--lenient`, the same on every command that reads a bundle. */
export const lenientOption = (): Option =>
  new Option(
    '--lenient',
    'degrade a $ref that resolves to nothing on an optional part (with a warning) instead of refusing',
  );

/** `--allow-outside-refs`, on the commands a person runs on a spec file of their own. */
export const outsideRefsOption = (): Option =>
  new Option(
    '--allow-outside-refs',
    "let a lone spec file's $refs read JSON/YAML files outside its folder (each is named in a warning)",
  );

export const integer = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
  }
  return n;
};

/** Episodes one process plays at once, at most: what its worker slots, database pool and Temporal client are sized for. */
export const maxConcurrency = 64;

/** `-c, --concurrency <k>`, the same bounds on every command that plays episodes. */
export const concurrencyOption = (what: string, fallback: number): Option =>
  new Option('-c, --concurrency <k>', `${what} played at once (1 to ${maxConcurrency})`)
    .argParser(integer('--concurrency', 1, maxConcurrency))
    .default(fallback);

/** A scenario file names its bundle: the nearest folder above it with a mirror.yaml. */
export const bundleOf = (target: string): { bundle: string; scenarioFile?: string } => {
  const absolute = path.resolve(target);
  if (!fs.existsSync(absolute)) {
    throw new UsageError(`${target}: no such file or folder`);
  }
  if (fs.statSync(absolute).isDirectory()) {
    return { bundle: absolute };
  }
  for (let dir = path.dirname(absolute); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'mirror.yaml'))) {
      return { bundle: dir, scenarioFile: path.relative(dir, absolute).split(path.sep).join('/') };
    }
  }
  throw new UsageError(`${target} is not inside a stack bundle (no mirror.yaml above it)`);
};

/** The scenarios a command runs: one file's, one id's, or the bundle's all; none is a usage error. */
export const scenariosOf = (model: StackModel, scenarioFile?: string, scenarioId?: string) => {
  const scenarios = model.scenarios.filter(
    (s) => (!scenarioFile || s.file === scenarioFile) && (!scenarioId || s.scenario.id === scenarioId),
  );
  if (scenarios.length === 0) {
    throw new UsageError(
      `no scenario to run: the bundle has ${model.scenarios.map((s) => `${s.scenario.id} (${s.file})`).join(', ') || 'none'}`,
    );
  }
  return scenarios;
};
