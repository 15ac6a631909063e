import * as fs from 'node:fs';
import * as path from 'node:path';

import { runCli } from '@test/support/cli-runner';
import { writeBundle } from '@test/support/bundle-fixtures';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

interface RunOutput {
  agents: string[];
  infrastructureErrors: number;
  summary: { agent: string; episodes: number; agentErrors: number; infrastructureErrors: number }[];
  episodes: {
    agent: string;
    status: string;
    reward: number | null;
    passed: boolean | null;
    agentError?: string;
    agentActions: number;
    transcriptFile: string;
    verdicts: { rule: string; status: string; evidence: { excerpt: string }[] }[];
  }[];
}

/**
 * Anyone can play: `mirror run --agent ./my-agent.mjs` runs a user's own module, the one the agents' README ships.
 * Real: the built CLI as a process, PostgreSQL, the Temporal dev server, the example company. Mocked: nothing.
 */
describe('mirror run with an agent of one’s own', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let env: Record<string, string>;
  const scenario = 'examples/acme-manufacturing/scenarios/single-supplier-negotiation.yaml';

  beforeAll(async () => {
    database = await createTestDatabase();
    env = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_DATA_DIR: path.join(writeBundle({}), 'data'),
    };
  });

  afterAll(() => database.drop());

  it('runs the README’s example agent through the twins, graded like any other', async () => {
    const result = await runCli(
      ['run', scenario, '--agent', './libs/reference-agents/examples/first-agent.mjs', '--seed', '3', '--json'],
      env,
    );
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as RunOutput;
    expect(output).toMatchObject({
      agents: ['first-agent'],
      infrastructureErrors: 0,
      summary: [{ agent: 'first-agent', episodes: 1, agentErrors: 0, infrastructureErrors: 0 }],
    });
    const [episode] = output.episodes;
    // It asks for a quote and finishes without an order: a clean failure, not a crash.
    expect(episode).toMatchObject({ agent: 'first-agent', status: 'failed', reward: 0, passed: false });
    expect(episode.agentError).toBeUndefined();
    const transcript = JSON.parse(fs.readFileSync(episode.transcriptFile, 'utf8')) as { actor: string; kind: string }[];
    expect(transcript.filter((e) => e.actor === 'agent').map((e) => e.kind)).toEqual(['email.sent']);
    expect(transcript.some((e) => e.actor !== 'agent' && e.kind === 'email.sent')).toBe(true);
  });

  it('counts an agent that acts after the end as its own failure, in the episode and in the summary', async () => {
    const dir = writeBundle({
      'late.mjs':
        "export default async function late(session) {\n  await session.finish();\n  await session.erp('/suppliers');\n}\n",
    });
    const result = await runCli(['run', scenario, '--agent', path.join(dir, 'late.mjs'), '--json'], env);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as RunOutput;
    expect(output.summary).toEqual([
      expect.objectContaining({ agent: 'late', agentErrors: 1, infrastructureErrors: 0 }),
    ]);
    const [episode] = output.episodes;
    expect(episode).toMatchObject({ status: 'failed', reward: 0, passed: false });
    expect(episode.agentError).toMatch(/^the agent stopped with an error: erp GET \/suppliers after the episode ended/);
    expect(episode.verdicts.find((v) => v.rule === 'agent-ran-to-its-end')).toMatchObject({ status: 'fail' });
  });

  it('holds a scenario against one’s own oracle in mirror check, naming it and the seed it missed', async () => {
    const result = await runCli(
      [
        'check',
        scenario,
        '--agent',
        './libs/reference-agents/examples/first-agent.mjs',
        '--seed',
        '5',
        '--seeds',
        '1',
        '--json',
      ],
      env,
    );
    expect(result.code).toBe(1);
    const output = JSON.parse(result.stdout) as {
      valid: boolean;
      summary: { agent: string; role: string; passed: number }[];
      problems: { agent: string; seed: number; problem: string }[];
    };
    expect(output.valid).toBe(false);
    // One's own agent stands in for the oracle; the idle agent and the scenario's own traps play beside it.
    const roles = output.summary.map((s) => [s.agent, s.role, s.passed]);
    expect(roles.slice(0, 2)).toEqual([
      ['first-agent', 'oracle', 0],
      ['idle', 'idle', 0],
    ]);
    expect(roles.length).toBeGreaterThan(2);
    expect(roles.slice(2)).toEqual(
      roles.slice(2).map(([agent]) => [expect.stringMatching(/^trap:/) as string, agent, 0]),
    );
    expect(output.problems[0]).toEqual({
      agent: 'first-agent',
      seed: 5,
      scenario: 'single-supplier-negotiation',
      episodeId: expect.any(String) as string,
      problem: expect.stringMatching(/^the oracle did not pass \(failed: no purchase order/) as string,
    });
    // With an oracle that earns nothing, no trap can earn less: each is named as a problem too.
    expect(output.problems.slice(1).map((p) => p.problem)).toEqual(
      roles.slice(2).map(([agent]) => `${String(agent)} earned 0, no less than the oracle's 0 on the same seed`),
    );
  });

  it.each([
    ['a missing file', 'missing.mjs', undefined, /missing\.mjs: no such agent module/],
    [
      'a syntax error',
      'broken.mjs',
      'export default { run( };\n',
      /broken\.mjs: the agent module could not be loaded: /,
    ],
    ['no run function', 'empty.mjs', 'export const hello = 1;\n', /empty\.mjs exports no agent: export default/],
  ])('refuses %s with exit 2, naming the file, before any episode', async (_case, file, content, message) => {
    const dir = writeBundle(content === undefined ? {} : { [file]: content });
    const result = await runCli(['run', scenario, '--agent', path.join(dir, file)], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/database: started|temporal:/);
  });

  it('still takes a built-in name as a built-in agent, and refuses an unknown one', async () => {
    const result = await runCli(['run', scenario, '--agent', 'clever'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no reference agent "clever"; use diligent, sloppy, idle, all, or a path/);
  });
});
