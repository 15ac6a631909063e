import { spawn } from 'node:child_process';
import * as path from 'node:path';

/** A real child process (through tsx) that takes the signal and then never finishes closing, as a hung close would. */
const closingForever = (graceMs: number) => {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `const { stopSignal } = require(${JSON.stringify(path.join(__dirname, 'stop-signal.ts'))});
       setInterval(() => {}, 1000);
       stopSignal('the child', ${graceMs}).then(() => console.log('closing'));
       console.log('ready');`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<void>((resolve) => {
    const check = () => (stdout.includes('ready') ? resolve() : setTimeout(check, 20));
    check();
  });
  const closing = () =>
    new Promise<void>((resolve) => {
      const check = () => (stdout.includes('closing') ? resolve() : setTimeout(check, 20));
      check();
    });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, ready, closing, exited };
};

describe('stopSignal', () => {
  it('exits non-zero, saying so, when closing outlasts the grace after SIGTERM', async () => {
    const { child, ready, exited } = closingForever(300);
    await ready;
    child.kill('SIGTERM');
    const { code, stdout, stderr } = await exited;
    expect(stdout).toContain('closing');
    expect(code).toBe(1);
    expect(stderr).toContain('the child: still closing 0.3 s after SIGTERM; exiting without waiting');
  });

  it('exits at once on a second signal while closing', async () => {
    const { child, ready, closing, exited } = closingForever(600_000);
    await ready;
    child.kill('SIGTERM');
    await closing();
    child.kill('SIGTERM');
    const { code, stderr } = await exited;
    expect(code).toBe(130);
    expect(stderr).toContain('a second signal while closing');
  });
});
