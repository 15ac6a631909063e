import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { isProcessAlive } from '../process/ports';

/** What an owner writes about itself. `port` appears once it serves; `released` once it has closed the folder. */
export interface OwnerRecord {
  generation: number;
  pid: number;
  port?: number;
  released?: boolean;
}

/** The owner as another process sees it. */
export type OwnerState =
  | { kind: 'none'; generation: number }
  | { kind: 'starting'; generation: number }
  | { kind: 'serving'; generation: number; port: number; pid: number }
  | { kind: 'gone'; generation: number };

export interface Claim {
  generation: number;
  /** Tells borrowers where the folder is served. */
  serving(port: number): void;
  /** Tells borrowers the folder is closed and free to take. */
  release(): void;
}

/** An owner file still empty this long after it was created belongs to a process that died while writing it. */
const UNWRITTEN_GRACE_MS = 10_000;

/** Claims made by this process, so a second opener in the same process sees a live owner, not its own stale pid. */
const heldHere = new Set<string>();

/**
 * Exclusive ownership of a data folder among processes, with stale owners taken over safely when several race.
 *
 * Each owner holds one generation: a file `<n>.json` created with `open(…, 'wx')`, which exactly one process can do.
 * The owner is the holder of the highest generation. A process that finds that holder gone claims the next
 * generation, never deleting or rewriting another's file, so two racers for the same dead owner cannot both win (the
 * usual delete-the-stale-lock step is where lock files lose exclusivity) and a file is never removed while it is the
 * highest. An owner rewrites only its own file (atomically, by rename), and removes generations below its own.
 */
export class FolderOwnership {
  constructor(private readonly directory: string) {}

  /** The highest generation's owner and whether it is starting, serving or gone. */
  current(): OwnerState {
    const generation = this.highestGeneration();
    if (generation === 0) {
      return { kind: 'none', generation };
    }
    const file = this.fileOf(generation);
    const record = readRecord(file);
    if (!record) {
      return ageOf(file) < UNWRITTEN_GRACE_MS ? { kind: 'starting', generation } : { kind: 'gone', generation };
    }
    const alive = heldHere.has(file) || (record.pid !== process.pid && isProcessAlive(record.pid));
    if (record.released || !alive) {
      return { kind: 'gone', generation };
    }
    return record.port === undefined
      ? { kind: 'starting', generation }
      : { kind: 'serving', generation, port: record.port, pid: record.pid };
  }

  /** Claims the generation after `after`; undefined when another process claimed it first. */
  claim(after: OwnerState): Claim | undefined {
    fs.mkdirSync(this.directory, { recursive: true });
    const generation = after.generation + 1;
    const file = this.fileOf(generation);
    let descriptor: number;
    try {
      descriptor = fs.openSync(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        return undefined;
      }
      throw error;
    }
    try {
      fs.writeSync(descriptor, JSON.stringify({ generation, pid: process.pid } satisfies OwnerRecord));
    } finally {
      fs.closeSync(descriptor);
    }
    if (this.highestGeneration() > generation) {
      // A later owner claimed past a generation it then removed, before this process read it: step back.
      fs.rmSync(file, { force: true });
      return undefined;
    }
    heldHere.add(file);
    this.removeGenerationsBelow(generation);
    const write = (record: OwnerRecord): void => {
      const temporary = path.join(this.directory, `.${generation}-${randomUUID()}.tmp`);
      fs.writeFileSync(temporary, JSON.stringify(record));
      fs.renameSync(temporary, file);
    };
    return {
      generation,
      serving: (port) => write({ generation, pid: process.pid, port }),
      release: () => {
        heldHere.delete(file);
        write({ generation, pid: process.pid, released: true });
      },
    };
  }

  private highestGeneration(): number {
    return Math.max(0, ...this.generations());
  }

  private generations(): number[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.directory);
    } catch {
      return [];
    }
    return names.flatMap((name) => (/^\d+\.json$/.test(name) ? [Number.parseInt(name, 10)] : []));
  }

  /** Best effort: only the highest generation matters, and the highest is never below a live owner's. */
  private removeGenerationsBelow(generation: number): void {
    for (const older of this.generations().filter((g) => g < generation)) {
      fs.rmSync(this.fileOf(older), { force: true });
    }
  }

  private fileOf(generation: number): string {
    return path.join(this.directory, `${generation}.json`);
  }
}

const readRecord = (file: string): OwnerRecord | undefined => {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<OwnerRecord>;
    return typeof record.pid === 'number' ? (record as OwnerRecord) : undefined;
  } catch {
    return undefined;
  }
};

const ageOf = (file: string): number => {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
};
