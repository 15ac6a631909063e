import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { benchDatabase } from './bench-database';
import { canPin, pinned } from './load-harness';

/**
 * The episode API as trainers use it, over HTTP against a server hosted as `mirror up` hosts it (pinned to core 0,
 * this process on core 1): episode creation p50/p99 next to a trivial API request; the overhead of a tool call through
 * `POST …/tool_calls` and through MCP `tools/call` over the same read sent bare to the twins' gateway with the agent's
 * own token, interleaved per round; and tool-call p99 as the live episodes grow.
 */
const bundle = path.resolve(__dirname, '..', '..', '..', 'examples', 'clinic-network');
const environment = 'clinic-network';
const task = 'invoice-dispute@1';
/** A read every scenario of the bundle allows: the helpdesk's ticket list, as tool and as bare twin request. */
const service = 'helpdesk';
const toolName = 'helpdesk_list_tickets';
const barePath = '/tickets';

const creations = Number(process.env.MIRROR_BENCH_EPISODES ?? 30);
const rounds = Number(process.env.MIRROR_BENCH_ROUNDS ?? 25);
const perRound = 10;
const maxLive = Number(process.env.MIRROR_BENCH_MAX_LIVE ?? 256);
/** Episode 1 takes calls at every level: two levels' worth at level 1, then half as many each level (< 1000 steps). */
const callsPerLevel = 200;
const p99LimitMs = 100;

interface Episode {
  episode_id: string;
  token: string;
  mcp: { url: string; headers: Record<string, string> };
}

const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);
const quantile = (values: number[], q: number): number => {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const median = (values: number[]): number => quantile(values, 0.5);
const ms = (value: number): string => value.toFixed(value < 10 ? 2 : 1);
const range = (values: number[]): string =>
  `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})`;

/** Milliseconds a request takes, its body read; throws on a status other than the one expected. */
const timed = async (url: string, init: RequestInit, expected = 200): Promise<{ ms: number; body: string }> => {
  const began = process.hrtime.bigint();
  const response = await fetch(url, init);
  const body = await response.text();
  const took = Number(process.hrtime.bigint() - began) / 1e6;
  if (response.status !== expected) {
    throw new Error(`${init.method ?? 'GET'} ${url}: HTTP ${response.status} ${body.slice(0, 300)}`);
  }
  return { ms: took, body };
};

const json = (body: unknown, token?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

interface Server {
  child: ChildProcess;
  api: string;
  maxLive: number;
  services: string[];
  ask<T>(request: Record<string, unknown>): Promise<T>;
}

const startServer = (dataDir: string, databaseUrl: string | undefined): Promise<Server> =>
  new Promise((resolve, reject) => {
    const [file, ...args] = pinned(0, [process.execPath, path.join(__dirname, 'episode-server.js'), bundle]);
    const child = spawn(file, args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env,
        MIRROR_DATA_DIR: dataDir,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        MIRROR_MAX_LIVE_EPISODES: String(maxLive),
        MIRROR_EPISODE_TTL_SECONDS: '3600',
      },
    });
    const pending = new Map<number, (answer: unknown) => void>();
    let next = 0;
    const timer = setTimeout(() => reject(new Error('the episode server did not start within 300 s')), 300_000);
    child.once('exit', (code) => reject(new Error(`the episode server exited (${code}) before it was ready`)));
    child.on('message', (message: { id?: number; ready?: Omit<Server, 'child' | 'ask'> }) => {
      if (message.ready) {
        clearTimeout(timer);
        resolve({
          child,
          ...message.ready,
          ask: <T>(request: Record<string, unknown>) =>
            new Promise<T>((answer) => {
              pending.set(next, answer as (value: unknown) => void);
              child.send({ ...request, id: next++ });
            }),
        });
      } else if (message.id !== undefined) {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    });
  });

const stopServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    const killer = setTimeout(() => server.child.kill('SIGKILL'), 60_000);
    server.child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    server.child.kill('SIGTERM');
  });

const uptime = (): string =>
  execFileSync('uptime', { encoding: 'utf8' })
    .trim()
    .replace(/^.*load average:\s*/, '');

export const runEpisodeBenchmarks = async (): Promise<void> => {
  const loadBefore = uptime();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-bench-episodes-'));
  if (canPin) {
    spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  }
  // What `mirror up` gives a user (embedded PGlite) unless DATABASE_URL is set, or a throw-away local PostgreSQL
  // cluster (the test database) with MIRROR_BENCH_DATABASE=postgres.
  const cluster = await benchDatabase();
  const server = await startServer(dataDir, cluster?.url ?? process.env.DATABASE_URL).catch(async (error: unknown) => {
    await cluster?.stop();
    throw error;
  });
  const database = server.services.find((line) => line.startsWith('database:')) ?? 'database: ?';
  const temporal = server.services.find((line) => /temporal/i.test(line)) ?? 'temporal: ?';
  console.log(
    `\nEpisode benchmark — ${environment} (${task}), server pinned to core 0 and this client to core 1${canPin ? '' : ' (not pinned: taskset missing)'}; ${database}; ${temporal}`,
  );
  const create = (maxSteps = 1000) =>
    timed(`${server.api}/v1/episodes`, json({ environment, task, max_steps: maxSteps }), 201);
  const remove = (episode: Episode) =>
    timed(`${server.api}/v1/episodes/${episode.episode_id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${episode.token}` },
    });
  const capacity = () => timed(`${server.api}/v1/capacity`, {});

  try {
    // 1. Creation, each next to a trivial API request (the HTTP floor) and deleted after.
    for (let i = 0; i < 3; i++) {
      await capacity();
      await remove(JSON.parse((await create()).body) as Episode);
    }
    const created: number[] = [];
    const floor: number[] = [];
    const deleted: number[] = [];
    for (let i = 0; i < creations; i++) {
      floor.push((await capacity()).ms);
      const { ms: took, body } = await create();
      created.push(took);
      deleted.push((await remove(JSON.parse(body) as Episode)).ms);
    }
    console.log(`\n${creations} episodes created one after another over HTTP, each deleted after (ms):\n`);
    console.log('| request | p50 | p99 | min–max |');
    console.log('|---|---|---|---|');
    for (const [label, values] of [
      ['GET /v1/capacity (HTTP floor, interleaved)', floor],
      ['POST /v1/episodes', created],
      ['DELETE /v1/episodes/{id}', deleted],
    ] as const) {
      console.log(
        `| ${label} | ${ms(median(values))} | ${ms(quantile(values, 0.99))} | ${ms(Math.min(...values))}–${ms(Math.max(...values))} |`,
      );
    }

    // 2. One read three ways, interleaved per round: bare to the gateway, tool_calls, MCP tools/call.
    const episode = JSON.parse((await create()).body) as Episode;
    const endpoint = await server.ask<{ baseUrl: string; token: string }>({
      kind: 'endpoint',
      episodeId: episode.episode_id,
      service,
    });
    let callId = 0;
    const bare = async () => {
      const { ms: took, body } = await timed(`${endpoint.baseUrl}${barePath}`, {
        headers: { authorization: `Bearer ${endpoint.token}` },
      });
      return { took, body };
    };
    const toolCalls = async () => {
      const { ms: took, body } = await timed(
        `${server.api}/v1/episodes/${episode.episode_id}/tool_calls`,
        json(
          { tool_calls: [{ id: `c${callId++}`, type: 'function', function: { name: toolName, arguments: '{}' } }] },
          episode.token,
        ),
      );
      const answer = JSON.parse(body) as { messages?: { content: string }[] };
      return { took, body: answer.messages?.[0]?.content ?? body };
    };
    const mcp = async () => {
      const { ms: took, body } = await timed(episode.mcp.url, {
        method: 'POST',
        headers: {
          ...episode.mcp.headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: callId++,
          method: 'tools/call',
          params: { name: toolName, arguments: {} },
        }),
      });
      const payload = body.startsWith('{') ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? body);
      const answer = JSON.parse(payload) as { result?: { isError?: boolean; content?: { text: string }[] } };
      if (answer.result?.isError !== false) {
        throw new Error(`MCP tools/call ${toolName} failed: ${body.slice(0, 300)}`);
      }
      return { took, body: answer.result.content?.[0]?.text ?? '' };
    };
    // The three must read the same thing, or the comparison is of different work.
    const [b, t, m] = [await bare(), await toolCalls(), await mcp()];
    if (JSON.stringify(JSON.parse(b.body)) !== JSON.stringify(JSON.parse(t.body)) || t.body !== m.body) {
      throw new Error(`the three paths answered differently:\n${b.body.slice(0, 200)}\n${t.body.slice(0, 200)}`);
    }
    for (let i = 0; i < 20; i++) {
      await bare();
      await toolCalls();
      await mcp();
    }
    const all = { bare: [] as number[], toolCalls: [] as number[], mcp: [] as number[] };
    const overhead = { toolCalls: [] as number[], mcp: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      const batch = async (f: () => Promise<{ took: number }>) => {
        const took: number[] = [];
        for (let i = 0; i < perRound; i++) {
          took.push((await f()).took);
        }
        return took;
      };
      const [x, y, z] = [await batch(bare), await batch(toolCalls), await batch(mcp)];
      all.bare.push(...x);
      all.toolCalls.push(...y);
      all.mcp.push(...z);
      overhead.toolCalls.push(median(y) - median(x));
      overhead.mcp.push(median(z) - median(x));
    }
    await remove(episode);
    console.log(
      `\n${toolName} (GET ${service}${barePath}) three ways, ${rounds} rounds of ${perRound} each, interleaved A B C (ms; overhead = median of the path − median of bare in the same round, median (min–max) over rounds):\n`,
    );
    console.log('| path | p50 | p99 | overhead over bare |');
    console.log('|---|---|---|---|');
    console.log(
      `| bare twin request to the gateway, agent's token | ${ms(median(all.bare))} | ${ms(quantile(all.bare, 0.99))} | — |`,
    );
    console.log(
      `| POST /v1/episodes/{id}/tool_calls | ${ms(median(all.toolCalls))} | ${ms(quantile(all.toolCalls, 0.99))} | ${range(overhead.toolCalls)} |`,
    );
    console.log(
      `| MCP tools/call (raw JSON-RPC POST) | ${ms(median(all.mcp))} | ${ms(quantile(all.mcp, 0.99))} | ${range(overhead.mcp)} |`,
    );
    for (const [label, values] of [
      ['tool_calls', overhead.toolCalls],
      ['MCP tools/call', overhead.mcp],
    ] as const) {
      console.log(
        `${label} overhead ${ms(median(values))} ms median — target under 5 ms: ${median(values) < 5 ? 'met' : 'NOT met'}`,
      );
    }

    // 3. Tool-call p99 as live episodes grow: a fixed number of calls spread round-robin over the live episodes, once
    // one at a time (what holding more episodes costs a call) and once with every episode's agent calling at once.
    const live: Episode[] = [];
    const levels: number[] = [];
    for (let level = 1; level <= Math.min(maxLive, server.maxLive); level *= 2) {
      levels.push(level);
    }
    const spread = async (concurrency: number): Promise<number[]> => {
      const took: number[] = [];
      let next = 0;
      const worker = async () => {
        while (next < callsPerLevel) {
          const call = next++;
          const target = live[call % live.length];
          took.push(
            (
              await timed(
                `${server.api}/v1/episodes/${target.episode_id}/tool_calls`,
                json(
                  {
                    tool_calls: [{ id: `r${call}`, type: 'function', function: { name: toolName, arguments: '{}' } }],
                  },
                  target.token,
                ),
              )
            ).ms,
          );
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return took;
    };
    console.log(
      `\nTool-call latency as live episodes grow (${callsPerLevel} tool_calls per level spread round-robin over the live episodes; ms):\n`,
    );
    console.log(
      '| live episodes | p50, one call at a time | p99, one call at a time | p50, every episode calling at once | p99, every episode calling at once | calls/s, every episode at once | server RSS MB |',
    );
    console.log('|---|---|---|---|---|---|---|');
    const crossed: { sequential?: number; all?: number } = {};
    let top = 0;
    for (const level of levels) {
      while (live.length < level) {
        live.push(JSON.parse((await create()).body) as Episode);
      }
      let sequential: number[];
      let everyone: number[];
      let perSecond: number;
      try {
        sequential = await spread(1);
        const began = process.hrtime.bigint();
        everyone = await spread(Math.min(level, callsPerLevel));
        perSecond = callsPerLevel / (Number(process.hrtime.bigint() - began) / 1e9);
      } catch (error) {
        // An episode that ends by itself (its workflow gone under load) is a finding, not a reason to lose the table.
        console.log(`| ${level} | stopped: ${error instanceof Error ? error.message.slice(0, 200) : String(error)} |`);
        break;
      }
      const { rssMb } = await server.ask<{ rssMb: number }>({ kind: 'memory' });
      console.log(
        `| ${level} | ${ms(median(sequential))} | ${ms(quantile(sequential, 0.99))} | ${ms(median(everyone))} | ${ms(quantile(everyone, 0.99))} | ${Math.round(perSecond)} | ${Math.round(rssMb)} |`,
      );
      top = level;
      crossed.sequential ??= quantile(sequential, 0.99) > p99LimitMs ? level : undefined;
      crossed.all ??= quantile(everyone, 0.99) > p99LimitMs ? level : undefined;
      if (crossed.sequential !== undefined && crossed.all !== undefined) {
        break;
      }
    }
    const verdict = (level: number | undefined) =>
      level === undefined ? `not reached up to ${top} live episodes` : `passed at ${level} live episodes`;
    console.log(
      `tool-call p99 over ${p99LimitMs} ms: one call at a time ${verdict(crossed.sequential)}; every episode calling at once ${verdict(crossed.all)}`,
    );
    for (const episode of live) {
      await remove(episode);
    }
  } finally {
    await stopServer(server);
    await cluster?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (canPin) {
      spawnSync('taskset', ['-cp', `0-${os.cpus().length - 1}`, String(process.pid)]);
    }
  }
  console.log(`\nload average (1, 5, 15 min) before: ${loadBefore}; after: ${uptime()} (${os.cpus().length} cores)`);
};
