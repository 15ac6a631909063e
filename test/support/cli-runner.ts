import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { testInstanceKey } from './instance-key';

export const repositoryRoot = path.resolve(__dirname, '..', '..');
const cli = path.join(repositoryRoot, 'bin', 'mirror.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `mirror` command as a user would, in its own process. */
export const runCli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> => {
  if (!fs.existsSync(path.join(repositoryRoot, 'dist', 'apps', 'cli', 'src', 'main.js'))) {
    throw new Error('the CLI is not built: run `npm run build` (npm test does) before the e2e tests');
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: repositoryRoot,
      // Episodes drawn under the tests' fixed instance key: a test's seed is the same task on every run.
      env: { MIRROR_INSTANCE_KEY: testInstanceKey, ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
};
