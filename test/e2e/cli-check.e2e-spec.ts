import * as fs from 'node:fs';
import * as path from 'node:path';

import { runCli } from '@test/support/cli-runner';
import { writeBundle } from '@test/support/bundle-fixtures';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

interface CheckOutput {
  valid: boolean;
  seeds: { first: number; count: number };
  broken: string[];
  infrastructureErrors: number;
  summary: {
    scenario: string;
    agent: string;
    role: string;
    episodes: number;
    passed: number;
    passRate: number | null;
    meanReward: number | null;
    agentErrors: number;
    infrastructureErrors: number;
    valid: boolean;
  }[];
  problems: { scenario: string; agent: string; seed: number; episodeId: string; problem: string }[];
  checks: { scenario: string; agent: string; seed: number; valid: boolean; problem?: string }[];
}

/** Real: the built CLI as a process, PostgreSQL, the Temporal dev server, the example company. Mocked: nothing. */
describe('mirror check', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_DATA_DIR: path.join(writeBundle({}), 'data'),
    };
  });

  afterAll(() => database.drop());

  it('finds the example scenario a valid task on every seed it plays, with pass rates per agent', async () => {
    const result = await runCli(
      [
        'check',
        'examples/acme-manufacturing',
        '--scenario',
        'single-supplier-negotiation',
        '--seed',
        '1',
        '--seeds',
        '2',
        '--json',
      ],
      env,
    );
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as CheckOutput;
    expect(output).toMatchObject({
      valid: true,
      broken: [],
      seeds: { first: 1, count: 2 },
      infrastructureErrors: 0,
      problems: [],
    });
    // The scenario's own plans: its oracle, the idle agent and each of its traps, on every seed.
    const roles = [
      'oracle',
      'idle',
      'trap:tells-the-target',
      'trap:tells-the-target-as-a-secret',
      'trap:orders-below-the-agreed-price',
      'trap:short-payment-terms',
      'trap:terms-to-personal-mail',
      'trap:terms-to-a-private-domain',
    ];
    expect(output.checks.map((c) => [c.agent, c.seed, c.valid])).toEqual(
      roles.flatMap((role) => [
        [role, 1, true],
        [role, 2, true],
      ]),
    );
    const row = (agent: string) => output.summary.find((s) => s.agent === agent);
    expect(row('oracle')).toMatchObject({ role: 'oracle', episodes: 2, passed: 2, passRate: 1, valid: true });
    expect(row('oracle')?.meanReward).toBeGreaterThan(0.75);
    for (const agent of roles.slice(1)) {
      expect(row(agent)).toMatchObject({ episodes: 2, passed: 0, passRate: 0, meanReward: 0, infrastructureErrors: 0 });
    }
  });

  it('reports a scenario broken, with exit 1, naming the agent, the seed and why, when a trap’s leak goes through', async () => {
    const bundle = writeBundle({});
    fs.cpSync('examples/acme-manufacturing', bundle, { recursive: true });
    const policyFile = path.join(bundle, 'policies', 'procurement.yaml');
    // The rule stays, but no longer guards the target price: the trap that tells it goes through.
    fs.writeFileSync(
      policyFile,
      fs.readFileSync(policyFile, 'utf8').replace('facts: [budget_ceiling, target_price]', 'facts: [budget_ceiling]'),
    );
    const result = await runCli(['check', bundle, '--scenario', 'single-supplier-negotiation', '--seeds', '1'], env);
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^scenario\s+agent\s+episodes\s+passed\s+pass rate\s+mean reward\s+agent errors\s+infra errors\s+check$/,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^single-supplier-negotiation\s+trap:tells-the-target\s+1\s+1\/1\s+100 %.*BROKEN$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^BROKEN single-supplier-negotiation trap:tells-the-target seed 1 \(episode [0-9a-f-]{36}\): trap tells-the-target went uncaught by no-confidential-figures-to-suppliers/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^8 episodes in .+, 0 infrastructure errors$/));
    expect(lines).toContain('broken on seed 1, do not ship: single-supplier-negotiation');
  });

  it('refuses a policy set whose rule names an event no twin records, at ingest, before any episode', async () => {
    const bundle = writeBundle({});
    fs.cpSync('examples/acme-manufacturing', bundle, { recursive: true });
    const policyFile = path.join(bundle, 'policies', 'procurement.yaml');
    fs.writeFileSync(
      policyFile,
      fs.readFileSync(policyFile, 'utf8').replace('event: slack.message.deleted', 'event: slack.message.removed'),
    );
    const result = await runCli(['check', bundle, '--json'], env);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      code: 'POLICY_INVALID',
      errors: [
        {
          location: expect.stringMatching(/^policies\/procurement\.yaml:\d+#\/rules\/\d+\/events\/event$/) as string,
          file: 'policies/procurement.yaml',
          line: expect.any(Number) as number,
          pointer: expect.stringMatching(/^\/rules\/\d+\/events\/event$/) as string,
          message: 'no twin of this stack records "slack.message.removed"',
        },
      ],
    });
  });
});
