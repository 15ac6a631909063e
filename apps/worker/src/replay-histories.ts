import * as fs from 'node:fs';
import * as path from 'node:path';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { replayHistory } from '@libs/episode-worker';

/**
 * Replays every recorded workflow history (a folder of Temporal JSON histories, `temporal workflow show -o json`)
 * against today's workflow code: exit 1 naming the first that does not replay, 0 when all do. Run before deploying
 * a change to workflow code; the test suite runs it on the recorded episodes.
 */
const main = async (): Promise<void> => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const folder = path.resolve(process.argv[2] ?? path.join(__dirname, 'histories'));
  const files = fs.readdirSync(folder).filter((file) => file.endsWith('.json'));
  for (const file of files) {
    const history: unknown = JSON.parse(fs.readFileSync(path.join(folder, file), 'utf8'));
    await replayHistory(history, file);
    process.stdout.write(`replayed ${file}\n`);
  }
  process.stdout.write(`${files.length} histories replay with the current workflow code\n`);
};

main().catch((error: unknown) => {
  process.stderr.write(`replay: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  process.exit(1);
});
