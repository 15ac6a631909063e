import type { StackModel } from '@libs/stack-ingestion';

import { CachedStackSource } from './cached-stack-source';
import { StackSource } from './twin-engine';

/** A database of stack versions that counts its reads; `abc123` is stored, and found by its prefix `abc` too. */
class CountingSource extends StackSource {
  reads = 0;
  stored = new Map<string, StackModel>([['abc123', { name: 'm' } as StackModel]]);

  load(_tenantId: string, stackVersion: string): Promise<{ version: string; model: StackModel } | undefined> {
    this.reads++;
    const version = [...this.stored.keys()].find((v) => v.startsWith(stackVersion));
    return Promise.resolve(version ? { version, model: this.stored.get(version)! } : undefined);
  }
}

describe(CachedStackSource.name, () => {
  it('reads a full version once and gives every later caller the same model', async () => {
    const source = new CountingSource();
    const sut = new CachedStackSource(source);
    const first = await sut.load('t', 'abc123');
    const again = await Promise.all([sut.load('t', 'abc123'), sut.load('t', 'abc123')]);
    expect(again.map((loaded) => loaded?.model)).toEqual([first?.model, first?.model]);
    expect(again[0]?.model).toBe(first?.model);
    expect(source.reads).toBe(1);
    // Per tenant: another tenant's read goes to the database (which decides what that tenant may see).
    await sut.load('u', 'abc123');
    expect(source.reads).toBe(2);
  });

  it('keeps neither a prefix (it may become ambiguous) nor a version not found (it may be stored later)', async () => {
    const source = new CountingSource();
    const sut = new CachedStackSource(source);
    await sut.load('t', 'abc');
    await sut.load('t', 'abc');
    expect(await sut.load('t', 'def456')).toBeUndefined();
    source.stored.set('def456', { name: 'n' } as StackModel);
    expect((await sut.load('t', 'def456'))?.version).toBe('def456');
    expect(source.reads).toBe(4);
  });

  it('holds at most its capacity, dropping the least recently used', async () => {
    const source = new CountingSource();
    for (const v of ['v1', 'v2', 'v3']) {
      source.stored.set(v, { name: v } as StackModel);
    }
    const sut = new CachedStackSource(source, 2);
    await sut.load('t', 'v1');
    await sut.load('t', 'v2');
    await sut.load('t', 'v1');
    await sut.load('t', 'v3');
    expect(source.reads).toBe(3);
    await sut.load('t', 'v1');
    expect(source.reads).toBe(3);
    await sut.load('t', 'v2');
    expect(source.reads).toBe(4);
  });
});
