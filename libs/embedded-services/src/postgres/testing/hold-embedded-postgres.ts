/**
 * A Mirror-like process for the sharing tests, run with `node --import tsx`. `serve <dataDir>`: opens the folder's
 * embedded database as the apps do, prints one JSON line per log line and one `{ready, source}` line, and stops the
 * database on SIGTERM before exiting. `claim <ownersDir> <at>`: looks at the folder's owner and, if it is gone, claims
 * the next generation once, prints whether it won, then waits for SIGTERM (a winner that exited at once would look like a dead owner).
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { startEmbeddedPostgres } from '../embedded-postgres';
import { FolderOwnership } from '../folder-ownership';

const [mode, folder, at] = process.argv.slice(2);
const print = (message: object): void => void process.stdout.write(`${JSON.stringify(message)}\n`);

const main = async (): Promise<void> => {
  if (mode === 'claim') {
    // Every racer looks at the same instant (`at`, epoch ms) and claims a second later: all of them have seen the
    // dead owner before any claims, the worst interleaving.
    await sleep(Math.max(0, Number(at) - Date.now()));
    const ownership = new FolderOwnership(folder);
    const owner = ownership.current();
    await sleep(Math.max(0, Number(at) + 1_000 - Date.now()));
    const claim = owner.kind === 'none' || owner.kind === 'gone' ? ownership.claim(owner) : undefined;
    print({ won: claim !== undefined, saw: owner.kind });
    const keepAlive = setInterval(() => undefined, 60_000);
    process.once('SIGTERM', () => {
      clearInterval(keepAlive);
      process.exit(0);
    });
    return;
  }
  const database = await startEmbeddedPostgres(folder, { log: (log) => print({ log }) });
  print({ ready: database.url, source: database.source });
  // A borrower's relay does not keep a process alive (an app's own connections do).
  const keepAlive = setInterval(() => undefined, 60_000);
  process.once('SIGTERM', () => {
    clearInterval(keepAlive);
    void database.stop().then(() => process.exit(0));
  });
};

main().catch((error: unknown) => {
  print({ failed: String(error) });
  process.exit(1);
});
