import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

import { repositoryRoot } from './cli-runner';

/** A built app as its own process; resolves with its output once a line matches `ready`. */
export const startBuiltApp = (
  app: 'gateway' | 'worker',
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repositoryRoot, 'dist', 'apps', app, 'src', 'main.js')], {
      cwd: repositoryRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code, signal) => reject(new Error(`the ${app} exited (${code ?? signal}): ${output}`)));
  });

export const processExited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
