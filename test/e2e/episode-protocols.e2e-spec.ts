import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { WebSocket } from 'ws';

import { repositoryRoot } from '@test/support/cli-runner';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

const run = promisify(execFile);

interface Started {
  episode_id: string;
  token: string;
  tools: { name: string }[];
  mcp: { url: string; headers: Record<string, string> };
}

/** Starts `mirror up <bundle> --port 0 --json` as a trainer would and waits for its ready line (it names `api`). */
const up = (databaseUrl: string, bundle: string): Promise<{ child: ChildProcess; api: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(repositoryRoot, 'bin', 'mirror.js'), 'up', bundle, '--port', '0', '--json'],
      {
        cwd: repositoryRoot,
        env: { ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let errors = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) {
        resolve({ child, api: (JSON.parse(output.split('\n')[0] ?? '{}') as { api: string }).api.replace(/\/$/, '') });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`mirror up exited with ${code}: ${errors}`)));
  });

/**
 * Real: the built CLI's `mirror up` (control plane, twin gateway, worker) on PostgreSQL and Temporal, the live-episode
 * registry behind the ports, the official MCP client, the conformance suite, an OpenEnv WebSocket session and the PyPI
 * OpenEnv client. Mocked: nothing.
 */
describe('episode protocols on mirror up', () => {
  let database: { url: string; drop: () => Promise<void> };
  let served: { child: ChildProcess; api: string };
  let environment: string;

  const startEpisode = async (): Promise<Started> => {
    const tasks = (await (
      await fetch(`${served.api}/v1/environments/${environment}/tasks?split=train&limit=1`)
    ).json()) as {
      tasks: { id: string }[];
    };
    const created = await fetch(`${served.api}/v1/episodes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ environment, task: tasks.tasks[0]?.id }),
    });
    expect(created.status).toBe(201);
    return (await created.json()) as Started;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    served = await up(database.url, 'examples/clinic-network');
    const listed = (await (await fetch(`${served.api}/v1/environments`)).json()) as { environments: { id: string }[] };
    environment = listed.environments[0]?.id ?? '';
  });

  afterAll(async () => {
    if (served.child.exitCode === null) {
      served.child.kill('SIGTERM');
      await new Promise((resolve) => served.child.once('exit', resolve));
    }
    await database.drop();
  });

  it('lets the official MCP client list the episode’s tools and finish it to a graded end', async () => {
    const episode = await startEpisode();
    const client = new Client(
      { name: 'e2e', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(episode.mcp.url), { requestInit: { headers: episode.mcp.headers } }),
    );
    try {
      const { tools } = await client.listTools();
      const finished = await client.callTool({ name: 'finish_episode', arguments: {} });

      expect(tools.map((tool) => tool.name)).toEqual(episode.tools.map((tool) => tool.name));
      expect(finished._meta?.['mirror/episode']).toMatchObject({ terminated: true, reward: expect.any(Number) });
    } finally {
      await client.close();
    }
    const status = await fetch(`${served.api}/v1/episodes/${episode.episode_id}`, { headers: episode.mcp.headers });
    expect(await status.json()).toMatchObject({ episode_id: episode.episode_id, status: 'ended' });
  });

  it('refuses MCP without the token (401) and with another episode’s (403)', async () => {
    const [first, second] = [await startEpisode(), await startEpisode()];
    const post = (headers: Record<string, string>): Promise<Response> =>
      fetch(first.mcp.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });

    const answers = await Promise.all([post({}), post({ Authorization: `Bearer ${second.token}` })]);

    expect(answers.map((answer) => answer.status)).toEqual([401, 403]);
  });

  it('passes the MCP conformance suite (its baseline lists what an episode does not serve)', async () => {
    const episode = await startEpisode();

    const result = await run(
      'bash',
      ['scripts/mcp-conformance.sh', '--target', episode.mcp.url, '--token', episode.token],
      {
        cwd: repositoryRoot,
      },
    );

    expect(result.stdout).toContain('=== SUMMARY ===');
  });

  it('lets MCP Inspector’s CLI list and call the tools', async () => {
    const episode = await startEpisode();

    const result = await run(
      'bash',
      ['scripts/mcp-inspector-check.sh', '--target', episode.mcp.url, '--token', episode.token],
      {
        cwd: repositoryRoot,
      },
    );

    expect(result.stdout).toContain('mcp-inspector-check: passed');
  });

  it('runs an OpenEnv WebSocket session: reset, list the tools, read the state', async () => {
    const ws = new WebSocket(`${served.api.replace(/^http/, 'ws')}/openenv/${environment}/ws`);
    const replies: Record<string, unknown>[] = [];
    const reply = (message: unknown): Promise<Record<string, unknown>> =>
      new Promise((resolve) => {
        ws.once('message', (raw: Buffer) => resolve(JSON.parse(raw.toString('utf8')) as Record<string, unknown>));
        ws.send(JSON.stringify(message));
      });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    try {
      replies.push(await reply({ type: 'reset', data: {} }));
      replies.push(await reply({ type: 'step', data: { type: 'list_tools' } }));
      replies.push(await reply({ type: 'state' }));
    } finally {
      ws.close();
    }

    expect(replies).toMatchObject([
      { type: 'observation', data: { done: false, metadata: { episode_id: expect.any(String) } } },
      {
        type: 'observation',
        data: { observation: { tools: expect.arrayContaining([expect.objectContaining({ name: 'finish_episode' })]) } },
      },
      { type: 'state', data: { status: 'running', step_count: 0 } },
    ]);
  });

  it('lets the PyPI OpenEnv client reset and step unchanged', async () => {
    const result = await run('bash', ['scripts/openenv-client/check.sh', `${served.api}/openenv/${environment}`], {
      cwd: repositoryRoot,
    });

    expect(result.stdout).toContain('openenv-client-check: passed');
  });
});
