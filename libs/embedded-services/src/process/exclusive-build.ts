import * as fs from 'node:fs';
import * as path from 'node:path';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const ownerOf = (lock: string): number | undefined => {
  const pid = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'r' }).trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
};

/**
 * Runs `build` in one process at a time per `lock` folder (made atomically with mkdir; it holds the builder's pid).
 * Others wait for it to finish and then run `build` themselves, which finds the finished product and returns at once;
 * a lock whose builder died is taken over. Several Mirror processes started together on a fresh machine (a test run,
 * a `mirror check`, a `mirror up`) otherwise each compiled the same Temporal CLI, five at once, for half an hour.
 */
export const exclusiveBuild = async <T>(
  lock: string,
  build: () => Promise<T>,
  onWait: (ownerPid: number) => void,
  pollMs = 2000,
): Promise<T> => {
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  let told = false;
  for (;;) {
    try {
      fs.mkdirSync(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error;
      }
      let owner: number | undefined;
      try {
        owner = ownerOf(lock);
      } catch {
        // Made but its pid not written yet: its maker is alive and about to write it.
        owner = process.pid;
      }
      if (owner !== undefined && owner !== process.pid && !isAlive(owner)) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!told && owner !== undefined && owner !== process.pid) {
        onWait(owner);
        told = true;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      continue;
    }
    fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
    try {
      return await build();
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
};
