import { ChildProcessByStdio, spawn } from 'node:child_process';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

import { repositoryRoot, runCli } from './cli-runner';
import { testOperatorKey } from './operator-key';

/**
 * The built gateway as deployed, in its own process, over `databaseUrl` with the procurement example stored there by
 * the CLI: the stack version it serves, and the process (its stdout says where it listens).
 */
export const startGatewayProcess = async (
  databaseUrl: string,
): Promise<{ version: string; child: ChildProcessByStdio<null, Readable, Readable> }> => {
  const ingested = await runCli(['ingest', path.join(repositoryRoot, 'examples', 'acme-procurement'), '--json'], {
    DATABASE_URL: databaseUrl,
  });
  const { version } = (JSON.parse(ingested.stdout) as { stack: { version: string } }).stack;
  const child = spawn(process.execPath, [path.join(repositoryRoot, 'dist', 'apps', 'gateway', 'src', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      GATEWAY_PORT: '0',
      MIRROR_TENANT: 'default',
      MIRROR_OPERATOR_KEY: testOperatorKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { version, child };
};
