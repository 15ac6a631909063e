import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';

import { Client } from 'pg';

import { OwnerRecord } from './folder-ownership';

/**
 * Several real Mirror-like processes on one data folder (no mocks): one owns the embedded PGlite, the others borrow
 * it through their relays; when the owner exits or is killed, exactly one borrower takes the folder over and every
 * borrower keeps answering on the same address, with all the data there.
 */

const holder = path.join(__dirname, 'testing', 'hold-embedded-postgres.ts');

interface Message {
  ready?: string;
  source?: string;
  log?: string;
  started?: boolean;
  won?: boolean;
  saw?: string;
  failed?: string;
}

class Holder {
  readonly messages: Message[] = [];
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    readline.createInterface({ input: process.stdout! }).on('line', (line) => {
      try {
        this.messages.push(JSON.parse(line) as Message);
      } catch {
        this.messages.push({ log: line });
      }
      this.waiters.forEach((wake) => wake());
    });
    process.stderr!.on('data', () => undefined);
    this.exited = new Promise((resolve) => process.once('exit', () => resolve()));
  }

  static spawn(name: string, ...args: string[]): Holder {
    return new Holder(
      name,
      spawn(process.execPath, ['--import', 'tsx', holder, ...args], { stdio: ['pipe', 'pipe', 'pipe'] }),
    );
  }

  /** Resolves with the first message that matches; fails naming this process when it exits or says it failed. */
  async waitFor(matches: (message: Message) => boolean): Promise<Message> {
    for (;;) {
      const found = this.messages.find(matches);
      if (found) {
        return found;
      }
      const failed = this.messages.find((message) => message.failed);
      if (failed || this.process.exitCode !== null) {
        throw new Error(`${this.name} ended: ${JSON.stringify(this.messages)}`);
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          this.waiters.delete(wake);
          resolve();
        };
        this.waiters.add(wake);
        setTimeout(wake, 500);
      });
    }
  }

  async ready(): Promise<{ url: string; source: string }> {
    const message = await this.waitFor((m) => m.ready !== undefined);
    return { url: message.ready!, source: message.source! };
  }

  tookOver(): boolean {
    return this.messages.some((m) => m.log?.includes('this process serves it now'));
  }
}

const query = async <T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
};

const countRows = async (url: string): Promise<number> =>
  (await query<{ rows: number }>(url, 'SELECT count(*)::int AS rows FROM shared_rows'))[0].rows;

/** A connection held open as a pool holds one: it breaks when the server under it goes away. */
const openConnection = async (url: string): Promise<Client> => {
  const client = new Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('SELECT 1');
  return client;
};

const ownerFile = (root: string): OwnerRecord => {
  const owners = path.join(root, 'pglite.owners');
  const highest = Math.max(...fs.readdirSync(owners).flatMap((n) => (/^\d+\.json$/.test(n) ? [parseInt(n, 10)] : [])));
  return JSON.parse(fs.readFileSync(path.join(owners, `${highest}.json`), 'utf8')) as OwnerRecord;
};

describe('one embedded database shared by several processes', () => {
  let root: string;
  const holders: Holder[] = [];
  const start = (name: string): Holder => {
    const started = Holder.spawn(name, 'serve', path.join(root, 'pglite'));
    holders.push(started);
    return started;
  };
  let urls: Map<Holder, string>;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-pglite-sharing-'));
  });

  afterAll(async () => {
    for (const running of holders) {
      running.process.kill('SIGKILL');
      await running.exited;
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('two first starts at once: one opens the folder, the other waits for it and borrows it', async () => {
    const [a, b] = [start('A'), start('B')];
    const ready = await Promise.all([a.ready(), b.ready()]);
    expect(ready.map((r) => r.source).sort()).toEqual([
      'embedded PGlite',
      'embedded PGlite (shared with another Mirror process)',
    ]);
    const c = start('C');
    expect((await c.ready()).source).toBe('embedded PGlite (shared with another Mirror process)');
    urls = new Map([
      [a, ready[0].url],
      [b, ready[1].url],
      [c, (await c.ready()).url],
    ]);

    const [first, second, third] = [...urls.values()];
    await query(first, 'CREATE TABLE shared_rows (n int PRIMARY KEY, written_by text)');
    await query(second, "INSERT INTO shared_rows SELECT n, 'second' FROM generate_series(1, 50) n");
    await query(third, "INSERT INTO shared_rows SELECT n, 'third' FROM generate_series(51, 60) n");
    for (const url of urls.values()) {
      expect(await countRows(url)).toBe(60);
    }
  });

  it('the owner exits (SIGTERM): exactly one borrower takes over, the other follows it, nothing is lost', async () => {
    const owner = [...urls.keys()].find((h) => ownerFile(root).pid === h.process.pid)!;
    const borrowers = [...urls.keys()].filter((h) => h !== owner);
    // Both borrowers hold a connection, so the owner's exit reaches them at the same moment and they race to claim.
    const held = await Promise.all(borrowers.map((b) => openConnection(urls.get(b)!)));

    owner.process.kill('SIGTERM');
    await owner.exited;
    expect(owner.process.exitCode).toBe(0);
    urls.delete(owner);

    for (const borrower of borrowers) {
      expect(await countRows(urls.get(borrower)!)).toBe(60);
    }
    expect(borrowers.filter((b) => b.tookOver())).toHaveLength(1);
    const successor = borrowers.find((b) => b.tookOver())!;
    expect(ownerFile(root)).toMatchObject({ pid: successor.process.pid, generation: 2 });
    const other = borrowers.find((b) => b !== successor)!;
    await query(urls.get(other)!, "INSERT INTO shared_rows SELECT n, 'after' FROM generate_series(61, 70) n");
    expect(await countRows(urls.get(successor)!)).toBe(70);
    // A connection open at the switch is lost with the owner's server, not silently pointed elsewhere mid-session.
    for (const connection of held) {
      await expect(connection.query('SELECT 1')).rejects.toThrow();
    }
  });

  it('the owner is killed (SIGKILL): the last borrower takes over, and its data is all there', async () => {
    const owner = [...urls.keys()].find((h) => ownerFile(root).pid === h.process.pid)!;
    const [last] = [...urls.keys()].filter((h) => h !== owner);
    const url = urls.get(last)!;
    await query(url, "INSERT INTO shared_rows SELECT n, 'before kill' FROM generate_series(71, 75) n");

    owner.process.kill('SIGKILL');
    await owner.exited;

    expect(await countRows(url)).toBe(75);
    await query(url, "INSERT INTO shared_rows VALUES (76, 'after kill')");
    expect(await countRows(url)).toBe(76);
    expect(last.tookOver()).toBe(true);
    expect(ownerFile(root)).toMatchObject({ pid: last.process.pid, generation: 3 });
    const writers = await query<{ written_by: string; rows: number }>(
      url,
      'SELECT written_by, count(*)::int AS rows FROM shared_rows GROUP BY written_by ORDER BY written_by',
    );
    expect(writers).toEqual([
      { written_by: 'after', rows: 10 },
      { written_by: 'after kill', rows: 1 },
      { written_by: 'before kill', rows: 5 },
      { written_by: 'second', rows: 50 },
      { written_by: 'third', rows: 10 },
    ]);
  });
});

describe('claiming a folder whose owner died', () => {
  it('eight processes that all saw the owner gone claim at once: exactly one becomes owner', async () => {
    const owners = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-pglite-claims-'));
    try {
      // Generation 1 belongs to a process that is gone.
      const dead = spawn(process.execPath, ['-e', '']);
      await new Promise((resolve) => dead.once('exit', resolve));
      fs.writeFileSync(path.join(owners, '1.json'), JSON.stringify({ generation: 1, pid: dead.pid, port: 1 }));

      const racers = Array.from({ length: 8 }, (_, i) => Holder.spawn(`racer ${i}`, 'claim', owners));
      const step = async (word: string, said: (m: Message) => boolean): Promise<Message[]> => {
        racers.forEach((r) => r.process.stdin!.write(`${word}\n`));
        return Promise.all(racers.map((r) => r.waitFor(said)));
      };
      try {
        await Promise.all(racers.map((r) => r.waitFor((m) => m.started === true)));
        const seen = await step('look', (m) => m.saw !== undefined);
        expect(seen.map((r) => r.saw)).toEqual(Array(8).fill('gone'));
        const results = await step('claim', (m) => m.won !== undefined);
        expect(results.filter((r) => r.won)).toHaveLength(1);
        const winner = racers[results.findIndex((r) => r.won)];
        const highest = fs.readdirSync(owners).filter((n) => /^\d+\.json$/.test(n));
        expect(highest).toEqual(['2.json']);
        expect(JSON.parse(fs.readFileSync(path.join(owners, '2.json'), 'utf8'))).toMatchObject({
          generation: 2,
          pid: winner.process.pid,
        });
      } finally {
        racers.forEach((r) => r.process.kill('SIGTERM'));
        await Promise.all(racers.map((r) => r.exited));
      }
    } finally {
      fs.rmSync(owners, { recursive: true, force: true });
    }
  });
});
