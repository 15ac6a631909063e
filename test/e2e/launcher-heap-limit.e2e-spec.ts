import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { repositoryRoot } from '../support/cli-runner';

/**
 * Real: the built launcher (`bin/mirror.js`) and the command it starts, signals between processes. A probe loaded
 * into every Node process through NODE_OPTIONS reports what each one runs with; with `hold`, it keeps the command
 * alive after it is done, so the test can signal it.
 */
const probe = `
const fs = require('node:fs');
const v8 = require('node:v8');
fs.appendFileSync(process.env.PROBE_OUT, JSON.stringify({
  pid: process.pid,
  heapLimitMb: v8.getHeapStatistics().heap_size_limit / 2 ** 20,
  heapFlag: process.execArgv.find((a) => a.startsWith('--max-old-space-size')) ?? null,
}) + '\\n');
if (process.env.PROBE_HOLD === '1' && process.execArgv.some((a) => a.startsWith('--max-old-space-size'))) {
  setInterval(() => undefined, 1000);
}
`;

interface Probed {
  pid: number;
  heapLimitMb: number;
  heapFlag: string | null;
}

describe('the mirror launcher', () => {
  let folder: string;
  const started: ChildProcess[] = [];

  beforeAll(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-launcher-'));
    fs.writeFileSync(path.join(folder, 'probe.js'), probe);
  });
  afterAll(() => {
    started.forEach((child) => child.kill('SIGKILL'));
    fs.rmSync(folder, { recursive: true, force: true });
  });

  const launch = (env: NodeJS.ProcessEnv, hold = false) => {
    const out = path.join(folder, `probe-${started.length}.jsonl`);
    const child = spawn(process.execPath, [path.join(repositoryRoot, 'bin', 'mirror.js'), 'schema', 'manifest'], {
      cwd: repositoryRoot,
      env: {
        ...process.env,
        NODE_OPTIONS: `--require ${path.join(folder, 'probe.js')}`,
        PROBE_OUT: out,
        PROBE_HOLD: hold ? '1' : '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, stdout })),
    );
    const probed = (): Probed[] =>
      fs.existsSync(out)
        ? fs
            .readFileSync(out, 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as Probed)
        : [];
    return { child, ended, probed };
  };

  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const until = async (condition: () => boolean): Promise<void> => {
    while (!condition()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('runs the command with V8’s heap limit set from the twins’ memory budget', async () => {
    const { ended, probed } = launch({ MIRROR_TWIN_MEMORY_MB: '200' });

    const { code, stdout } = await ended;

    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toHaveProperty('$schema');
    const [launcher, command] = probed();
    expect(launcher.heapFlag).toBeNull();
    expect(command.heapFlag).toBe('--max-old-space-size=712');
    // V8's limit counts the young generation too: a little above the old space's.
    expect(command.heapLimitMb).toBeGreaterThanOrEqual(712);
    expect(command.heapLimitMb).toBeLessThan(712 + 128);
    expect(command.heapLimitMb).toBeLessThan(launcher.heapLimitMb);
  });

  it('leaves the heap alone when there is no budget or NODE_OPTIONS chose a limit', async () => {
    const unbounded = launch({ MIRROR_TWIN_MEMORY_MB: '0' });
    expect((await unbounded.ended).code).toBe(0);
    expect(unbounded.probed()).toEqual([expect.objectContaining({ heapFlag: null })]);

    const chosen = launch({
      NODE_OPTIONS: `--max-old-space-size=300 --require ${path.join(folder, 'probe.js')}`,
      MIRROR_TWIN_MEMORY_MB: '200',
    });
    expect((await chosen.ended).code).toBe(0);
    expect(chosen.probed()).toHaveLength(1);
    expect(chosen.probed()[0].heapLimitMb).toBeLessThan(400);
  });

  it('passes SIGTERM on and ends by it; killed outright, it takes the command with it', async () => {
    const terminated = launch({ MIRROR_TWIN_MEMORY_MB: '200' }, true);
    await until(() => terminated.probed().length === 2);
    const termCommand = terminated.probed()[1].pid;
    terminated.child.kill('SIGTERM');
    expect(await terminated.ended).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(alive(termCommand)).toBe(false);

    const killed = launch({ MIRROR_TWIN_MEMORY_MB: '200' }, true);
    await until(() => killed.probed().length === 2);
    const killCommand = killed.probed()[1].pid;
    expect(alive(killCommand)).toBe(true);
    killed.child.kill('SIGKILL');
    await killed.ended;
    await until(() => !alive(killCommand));
  });
});
