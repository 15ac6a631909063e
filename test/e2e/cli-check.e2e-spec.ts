import * as fs from 'node:fs';
import * as path from 'node:path';

import { runCli } from '@test/support/cli-runner';
import { writeBundle } from '@test/support/bundle-fixtures';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

interface CheckOutput {
  valid: boolean;
  broken: string[];
  checks: { scenario: string; agent: string; valid: boolean; problem?: string }[];
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

  it('finds the example scenario a valid task', async () => {
    const result = await runCli(
      ['check', 'examples/acme-manufacturing', '--scenario', 'single-supplier-negotiation', '--json'],
      env,
    );
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as CheckOutput;
    expect(output).toMatchObject({ valid: true, broken: [] });
    expect(output.checks.map((c) => [c.agent, c.valid])).toEqual([
      ['idle', true],
      ['diligent', true],
      ['sloppy', true],
    ]);
  }, 120_000);

  it('reports a scenario broken, with exit 1, when its policies let the sloppy agent’s leak through', async () => {
    const bundle = writeBundle({});
    fs.cpSync('examples/acme-manufacturing', bundle, { recursive: true });
    const policyFile = path.join(bundle, 'policies', 'procurement.yaml');
    fs.writeFileSync(
      policyFile,
      fs
        .readFileSync(policyFile, 'utf8')
        .replace(/ {2}- id: no-confidential-figures-to-suppliers[\s\S]*?(?= {2}- id:)/, ''),
    );
    const result = await runCli(['check', bundle, '--scenario', 'single-supplier-negotiation', '--json'], env);
    expect(result.code).toBe(1);
    const output = JSON.parse(result.stdout) as CheckOutput;
    expect(output).toMatchObject({ valid: false, broken: ['single-supplier-negotiation'] });
    expect(output.checks.find((c) => c.agent === 'sloppy')?.problem).toMatch(/disclosure went unpunished/);
  }, 120_000);

  it('refuses a policy set whose rule names an event no twin records, before any episode', async () => {
    const bundle = writeBundle({});
    fs.cpSync('examples/acme-manufacturing', bundle, { recursive: true });
    const policyFile = path.join(bundle, 'policies', 'procurement.yaml');
    fs.writeFileSync(
      policyFile,
      fs.readFileSync(policyFile, 'utf8').replace('event: slack.message.deleted', 'event: slack.message.removed'),
    );
    const result = await runCli(['check', bundle, '--json'], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      valid: false,
      checks: [],
      policyProblems: [
        {
          file: 'policies/procurement.yaml',
          pointer: expect.stringMatching(/^\/rules\/\d+\/events\/event$/) as string,
          message: 'no twin of this stack records "slack.message.removed"',
        },
      ],
    });
  });
});
