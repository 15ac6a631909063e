import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

import type { CredentialPlace } from '@libs/openapi-schemas';

import { repositoryRoot } from './cli-runner';

export interface Served {
  child: ChildProcess;
  ready: {
    episodeId: string;
    gateway: string;
    services: {
      name: string;
      baseUrl: string;
      gatewayUrl: string;
      agentToken?: string;
      /** Where the token goes, when the service's spec declares security. */
      credential?: CredentialPlace[];
    }[];
  };
}

/** Starts `mirror serve <args> --port 0 --json` as a user would and waits for its one line of base URLs. */
export const serve = (databaseUrl: string, args: string[]): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(repositoryRoot, 'bin', 'mirror.js'), 'serve', ...args, '--port', '0', '--json'],
      {
        cwd: repositoryRoot,
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let errors = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) {
        resolve({ child, ready: JSON.parse(output.split('\n')[0]) as Served['ready'] });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${errors}`)));
  });
