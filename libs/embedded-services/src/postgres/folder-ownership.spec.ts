import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { FolderOwnership, OwnerRecord } from './folder-ownership';

describe(FolderOwnership.name, () => {
  let directory: string;
  let ownership: FolderOwnership;
  const write = (generation: number, record: Partial<OwnerRecord> | string): void => {
    fs.mkdirSync(directory, { recursive: true });
    const body = typeof record === 'string' ? record : JSON.stringify({ generation, ...record });
    fs.writeFileSync(path.join(directory, `${generation}.json`), body);
  };
  const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid;
  /** A live process that is not this one: the parent (jest's runner or the shell that started it). */
  const otherLivePid = process.ppid;

  beforeEach(() => {
    directory = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-ownership-')), 'pglite.owners');
    ownership = new FolderOwnership(directory);
  });

  afterEach(() => fs.rmSync(path.dirname(directory), { recursive: true, force: true }));

  it('has no owner in a new folder, and the first claim owns generation 1', () => {
    expect(ownership.current()).toEqual({ kind: 'none', generation: 0 });
    const claim = ownership.claim(ownership.current());
    expect(claim?.generation).toBe(1);
    expect(ownership.current()).toEqual({ kind: 'starting', generation: 1 });
    claim!.serving(5432);
    expect(ownership.current()).toEqual({ kind: 'serving', generation: 1, port: 5432, pid: process.pid });
    claim!.release();
    expect(ownership.current()).toEqual({ kind: 'gone', generation: 1 });
  });

  it('judges the highest generation only, compared as numbers', () => {
    write(9, { pid: deadPid() });
    write(10, { pid: otherLivePid, port: 7000 });
    expect(ownership.current()).toEqual({ kind: 'serving', generation: 10, port: 7000, pid: otherLivePid });
  });

  it('an owner whose process is gone, or that released the folder, is gone', () => {
    write(1, { pid: deadPid(), port: 7000 });
    expect(ownership.current().kind).toBe('gone');
    write(2, { pid: otherLivePid, port: 7000, released: true });
    expect(ownership.current().kind).toBe('gone');
  });

  it("a record naming this process's pid that this process did not claim is a previous life's (a restarted container)", () => {
    write(1, { pid: process.pid, port: 7000 });
    expect(ownership.current().kind).toBe('gone');
  });

  it('an owner file not yet written is starting, until it is too old to be', () => {
    write(1, '');
    expect(ownership.current()).toEqual({ kind: 'starting', generation: 1 });
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(directory, '1.json'), old, old);
    expect(ownership.current()).toEqual({ kind: 'gone', generation: 1 });
  });

  it('a generation can be claimed once: the second claimant gets nothing and the first keeps it', () => {
    write(1, { pid: deadPid() });
    const seen = ownership.current();
    const first = ownership.claim(seen);
    const second = new FolderOwnership(directory).claim(seen);
    expect(first?.generation).toBe(2);
    expect(second).toBeUndefined();
    expect(ownership.current()).toEqual({ kind: 'starting', generation: 2 });
  });

  it('a claim below a newer owner steps back (its generation was removed before the claimant read it)', () => {
    write(3, { pid: otherLivePid, port: 7000 });
    expect(ownership.claim({ kind: 'gone', generation: 1 })).toBeUndefined();
    expect(fs.readdirSync(directory)).toEqual(['3.json']);
    expect(ownership.current()).toMatchObject({ kind: 'serving', generation: 3 });
  });

  it("the new owner removes older generations, never the others' newer ones", () => {
    write(1, { pid: deadPid() });
    write(2, { pid: deadPid() });
    const claim = ownership.claim(ownership.current());
    expect(claim?.generation).toBe(3);
    expect(fs.readdirSync(directory).filter((name) => name.endsWith('.json'))).toEqual(['3.json']);
  });
});
