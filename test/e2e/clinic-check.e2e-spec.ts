import * as fs from 'node:fs';
import * as path from 'node:path';

import { runCli } from '@test/support/cli-runner';
import { writeBundle } from '@test/support/bundle-fixtures';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

interface CheckOutput {
  valid: boolean;
  broken: string[];
  infrastructureErrors: number;
  summary: { scenario: string; agent: string; role: string; episodes: number; passed: number; valid: boolean }[];
  checks: {
    scenario: string;
    agent: string;
    role: string;
    seed: number;
    valid: boolean;
    reward: number;
    problem?: string;
  }[];
}

/** The clinic example in a folder of its own, with one file edited. */
const clinicWith = (file: string, edit: (text: string) => string): string => {
  const bundle = writeBundle({});
  fs.cpSync('examples/clinic-network', bundle, { recursive: true });
  const target = path.join(bundle, file);
  fs.writeFileSync(target, edit(fs.readFileSync(target, 'utf8')));
  return bundle;
};

/**
 * Real: the built CLI as a process, PostgreSQL, the Temporal dev server, the clinic example (no procurement pack,
 * parties, oracle and traps all data). Mocked: nothing. A few seeds here; the 20-seed run is measured by hand.
 */
describe('mirror check on a domain it has no code for', () => {
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

  it('finds the clinic scenarios valid: the oracle passes, idle earns 0, every trap is caught and earns less', async () => {
    const result = await runCli(['check', 'examples/clinic-network', '--seed', '3', '--seeds', '1', '--json'], env);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as CheckOutput;
    expect(output).toMatchObject({ valid: true, broken: [], infrastructureErrors: 0 });
    expect(output.summary.map((s) => [s.scenario, s.role, s.valid])).toEqual([
      ['invoice-dispute', 'oracle', true],
      ['invoice-dispute', 'idle', true],
      ['invoice-dispute', 'trap:refunds-without-finance', true],
      ['invoice-dispute', 'trap:mails-the-diagnosis', true],
      ['invoice-dispute', 'trap:writes-off-the-invoice', true],
      ['invoice-dispute', 'trap:forwards-to-the-insurer', true],
      ['invoice-dispute', 'trap:tells-the-patient-first-in-copy', true],
      ['invoice-dispute', 'trap:refunds-both-charges', true],
      ['invoice-dispute', 'trap:tells-a-stranger-the-total', true],
      ['invoice-dispute', 'trap:refunds-a-token-amount', true],
      ['relative-invoice-request', 'oracle', true],
      ['relative-invoice-request', 'idle', true],
      ['relative-invoice-request', 'trap:tells-the-relatives-invoice', true],
      ['relative-invoice-request', 'trap:tells-what-the-visit-was-for', true],
      ['relative-invoice-request', 'trap:replies-without-refusing', true],
      ['relative-invoice-request', 'trap:tells-the-total-in-a-header', true],
      ['relative-invoice-request', 'trap:names-the-relatives-record', true],
    ]);
    expect(output.checks.filter((c) => c.role !== 'oracle').map((c) => c.reward)).toEqual(
      output.checks.filter((c) => c.role !== 'oracle').map(() => 0),
    );
    expect(output.checks.filter((c) => c.role === 'oracle').every((c) => c.reward > 0)).toBe(true);
  });

  it('reports a toothless rule: the trap it should catch goes through, and the scenario is broken', async () => {
    // The diagnosis rule now looks only at mail to one unrelated domain: it can never catch the trap.
    const bundle = clinicWith('policies/billing.yaml', (text) =>
      text.replace("forbidden_domains: ['*']", 'forbidden_domains: [nowhere.example]'),
    );
    const result = await runCli(
      ['check', bundle, '--scenario', 'relative-invoice-request', '--seed', '3', '--seeds', '1', '--json'],
      env,
    );
    expect(result.code).toBe(1);
    const output = JSON.parse(result.stdout) as CheckOutput;
    expect(output.broken).toEqual(['relative-invoice-request']);
    const broken = output.checks.filter((c) => !c.valid);
    expect(broken).toEqual([
      expect.objectContaining({
        role: 'trap:tells-what-the-visit-was-for',
        problem: expect.stringMatching(/went uncaught by no-diagnosis-by-mail/) as string,
      }),
    ]);
  });

  it('refuses a trap whose rule was removed, at ingest, at the trap naming it', async () => {
    const bundle = clinicWith('policies/billing.yaml', (text) =>
      text.replace(/ {2}- id: no-other-patients-figures[\s\S]*?(?= {2}- id:)/, ''),
    );
    const result = await runCli(['check', bundle, '--json'], env);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      code: expect.any(String) as string,
      errors: [0, 3].map((trap) => ({
        location: expect.stringMatching(
          new RegExp(`^scenarios/relative-invoice-request\\.yaml:\\d+#/traps/${trap}/catches/0$`),
        ) as string,
        file: 'scenarios/relative-invoice-request.yaml',
        line: expect.any(Number) as number,
        pointer: `/traps/${trap}/catches/0`,
        message: expect.stringMatching(
          /no policy set the scenario applies has a rule "no-other-patients-figures"/,
        ) as string,
      })),
    });
  });
});
