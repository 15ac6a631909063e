/**
 * A Mirror-like process for the sharing tests, run with `node --import tsx`. `serve <dataDir>`: opens the folder's
 * embedded database as the apps do, prints one JSON line per log line and one `{ready, source}` line, and stops the
 * database on SIGTERM before exiting. `claim <ownersDir>`: on `look` (stdin) reads the folder's owner, on `claim` claims
 * the next generation if that owner was gone and prints whether it won, then waits for SIGTERM (a winner that exited
 * at once would look like a dead owner).
 */
import * as readline from 'node:readline';

import { startEmbeddedPostgres } from '../embedded-postgres';
import { FolderOwnership, OwnerState } from '../folder-ownership';

const [mode, folder] = process.argv.slice(2);
const print = (message: object): void => void process.stdout.write(`${JSON.stringify(message)}\n`);

const main = async (): Promise<void> => {
  if (mode === 'claim') {
    // Steps on the test's word (lines on stdin), so every racer has looked before any claims, however loaded the
    // machine: the worst interleaving, every one of them sure the owner is gone.
    const ownership = new FolderOwnership(folder);
    let owner: OwnerState | undefined;
    print({ started: true });
    readline.createInterface({ input: process.stdin }).on('line', (step) => {
      if (step === 'look') {
        owner = ownership.current();
        print({ saw: owner.kind });
      } else if (step === 'claim' && owner) {
        const gone = owner.kind === 'none' || owner.kind === 'gone';
        print({ won: gone && ownership.claim(owner) !== undefined });
      }
    });
    process.once('SIGTERM', () => process.exit(0));
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
