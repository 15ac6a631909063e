import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { exclusiveBuild } from './exclusive-build';

const lockIn = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-build-lock-')), 'product.building');

describe('exclusiveBuild', () => {
  it('runs one build at a time; the waiter runs after the builder and sees its product', async () => {
    const lock = lockIn();
    const order: string[] = [];
    let product = false;
    const first = exclusiveBuild(
      lock,
      async () => {
        order.push('first starts');
        await new Promise((resolve) => setTimeout(resolve, 150));
        product = true;
        order.push('first ends');
        return 'built';
      },
      () => undefined,
      10,
    );
    const second = exclusiveBuild(
      lock,
      () => {
        order.push(`second starts, product ${product ? 'there' : 'missing'}`);
        return Promise.resolve('found');
      },
      () => undefined,
      10,
    );
    await expect(Promise.all([first, second])).resolves.toEqual(['built', 'found']);
    expect(order).toEqual(['first starts', 'first ends', 'second starts, product there']);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose builder died', async () => {
    const lock = lockIn();
    const child = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)));
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, 'pid'), String(deadPid));
    await expect(
      exclusiveBuild(
        lock,
        () => Promise.resolve('rebuilt'),
        () => undefined,
        10,
      ),
    ).resolves.toBe('rebuilt');
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('frees the lock when the build fails', async () => {
    const lock = lockIn();
    await expect(
      exclusiveBuild(
        lock,
        async () => Promise.reject(new Error('no go')),
        () => undefined,
        10,
      ),
    ).rejects.toThrow('no go');
    expect(fs.existsSync(lock)).toBe(false);
  });
});
