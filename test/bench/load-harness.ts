/** Servers in their own pinned processes, loaded with autocannon from this one: what the HTTP benchmarks share. */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as http from 'node:http';
import * as os from 'node:os';

import autocannon, { Request } from 'autocannon';

export const seconds = Number(process.env.MIRROR_BENCH_SECONDS ?? 5);
export const runs = Number(process.env.MIRROR_BENCH_RUNS ?? 3);
export const canPin = spawnSync('sh', ['-c', 'command -v taskset']).status === 0 && os.cpus().length >= 2;
export const pinned = (core: number, command: string[]): string[] =>
  canPin ? ['taskset', '-c', String(core), ...command] : command;

export interface Started {
  child: ChildProcess;
  port: number;
  info: Record<string, unknown>;
}

/** Resolves once anything answers HTTP on the port: Prism's own log lines are coloured and change between versions. */
export const waitForHttp = async (port: number, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answered = await new Promise<boolean>((resolve) => {
      const request = http.get({ host: '127.0.0.1', port, path: '/', timeout: 1000 }, (response) => {
        response.resume();
        resolve(true);
      });
      // A server still loading may accept the connection and say nothing: give up on this try, not forever.
      request.on('timeout', () => request.destroy());
      request.on('error', () => resolve(false));
    });
    if (answered) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`did not start within ${Math.round(timeoutMs / 1000)} s`);
};

/** Starts a server process on core 0 and waits for the JSON line with its port (or for `fixedPort` to answer). */
export const start = (command: string[], timeoutMs: number, fixedPort?: number): Promise<Started> =>
  new Promise((resolve, reject) => {
    const [file, ...args] = pinned(0, command);
    // Its own process group: `npm exec` → sh → prism is three processes, and all of them must stop with it.
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const timer = setTimeout(() => {
      killGroup(child);
      reject(new Error(`did not start within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{"port"'));
      if (line) {
        clearTimeout(timer);
        const info = JSON.parse(line) as { port: number };
        resolve({ child, port: info.port, info });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${output.slice(-500)}`));
    });
    if (fixedPort) {
      waitForHttp(fixedPort, timeoutMs).then(
        () => {
          clearTimeout(timer);
          resolve({ child, port: fixedPort, info: {} });
        },
        (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
      );
    }
  });

export const killGroup = (child: ChildProcess): void => {
  try {
    process.kill(-(child.pid as number), 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
};

export const stop = async (started: Started): Promise<void> => {
  const closed = new Promise((resolve) => started.child.once('close', resolve));
  killGroup(started.child);
  await closed;
};

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Throughput: autocannon, 10 connections, `seconds` per run, median of `runs` (load from this process, core 1). */
export const throughput = async (
  url: string,
  everyUrlNew: boolean,
  requests?: Request[],
  /** The credential every request presents (a twin's token where its spec asks for one). */
  authorization = 'Bearer benchmark',
): Promise<{ median: number; min: number; max: number; non2xx: number }> => {
  const values: number[] = [];
  let non2xx = 0;
  let counter = 0;
  const { pathname } = new URL(url);
  for (let i = 0; i < runs; i++) {
    const result = await autocannon({
      url,
      connections: 10,
      duration: seconds,
      headers: { authorization },
      // A query no operation reads makes every request a different one, so no answer is ever reused.
      ...(everyUrlNew
        ? { requests: [{ setupRequest: (request) => ({ ...request, path: `${pathname}?bench_nonce=${counter++}` }) }] }
        : {}),
      // A mix (a write then a read …) that every connection cycles through.
      ...(requests ? { requests } : {}),
    });
    values.push(result.requests.average);
    non2xx += result.non2xx;
  }
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), non2xx };
};

/** Sequential latency on one keep-alive connection: 50 warm-up then 500 measured requests. */
export const latency = async (
  url: string,
  everyUrlNew: boolean,
  authorization = 'Bearer benchmark',
): Promise<{ p50: number; p99: number }> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let counter = 0;
  const once = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      http
        .get(
          everyUrlNew ? `${url}?bench_nonce=${counter++}` : url,
          { agent, headers: { authorization } },
          (response) => {
            response.resume();
            response.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
          },
        )
        .on('error', reject);
    });
  for (let i = 0; i < 50; i++) {
    await once();
  }
  const samples: number[] = [];
  for (let i = 0; i < 500; i++) {
    samples.push(await once());
  }
  samples.sort((a, b) => a - b);
  agent.destroy();
  return { p50: samples[249], p99: samples[494] };
};

export const format = (n: number): string => Math.round(n).toLocaleString('en-US');
