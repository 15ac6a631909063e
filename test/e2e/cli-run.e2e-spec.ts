import * as fs from 'node:fs';
import * as path from 'node:path';

import { runCli } from '@test/support/cli-runner';
import { writeBundle } from '@test/support/bundle-fixtures';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

/** Real: the built CLI as a process, PostgreSQL, the Temporal dev server, the example company. Mocked: nothing. */
describe('mirror run', () => {
  it('runs a scenario with a reference agent and prints each episode’s outcome as JSON', async () => {
    const database = await createTestDatabase();
    try {
      const result = await runCli(
        [
          'run',
          'examples/acme-manufacturing/scenarios/single-supplier-negotiation.yaml',
          '--agent',
          'diligent,sloppy,idle',
          '--seed',
          '4',
          '--json',
        ],
        {
          DATABASE_URL: database.url,
          TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
          MIRROR_DATA_DIR: path.join(writeBundle({}), 'data'),
        },
      );
      expect(result.code).toBe(0);
      const output = JSON.parse(result.stdout) as {
        agents: string[];
        episodes: {
          agent: string;
          compliant: boolean;
          verdicts: { rule: string; status: string; evidence: { excerpt: string }[] }[];
          status: string;
          seed: number;
          agentActions: number;
          simulatedBusinessDays: number;
          finalTerms: unknown;
          transcriptFile: string;
        }[];
      };
      expect(output.agents).toEqual(['diligent', 'sloppy', 'idle']);
      expect(output.episodes.map((e) => [e.agent, e.seed, e.status, e.compliant])).toEqual([
        ['diligent', 4, 'succeeded', true],
        ['sloppy', 4, 'failed', false],
        ['idle', 4, 'failed', true],
      ]);
      // The graders catch what sloppy is built to break: its target price told to the supplier, a split purchase.
      const sloppy = output.episodes[1].verdicts.filter((v) => v.status === 'fail').map((v) => v.rule);
      expect(sloppy).toEqual(['no-confidential-figures-to-suppliers', 'approval-above-threshold']);
      const [diligent] = output.episodes;
      expect(diligent.agentActions).toBeGreaterThan(3);
      expect(diligent.simulatedBusinessDays).toBeGreaterThanOrEqual(1);
      expect(diligent.finalTerms).toMatchObject({ status: expect.stringMatching(/sent|acknowledged/) as string });
      const transcript = JSON.parse(fs.readFileSync(diligent.transcriptFile, 'utf8')) as { kind: string }[];
      expect(transcript.map((e) => e.kind)).toContain('erp.po.sent');
    } finally {
      await database.drop();
    }
  }, 120_000);

  it('refuses a broken scenario with located errors before any episode starts', async () => {
    const bundle = writeBundle({
      'mirror.yaml': 'name: x\nservices:\n  - { name: email, pack: email }\nscenarios: [scenarios/s.yaml]\n',
      'scenarios/s.yaml': fs
        .readFileSync('examples/acme-manufacturing/scenarios/single-supplier-negotiation.yaml', 'utf8')
        .replace('tools: [email, slack, erp]', 'tools: [email, teams]'),
    });
    const result = await runCli(['run', bundle, '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({
      code: 'SCENARIO_INVALID',
      errors: [
        {
          file: 'scenarios/s.yaml',
          pointer: '/task/tools/1',
          message: 'the stack has no service "teams"; it has email',
          line: expect.any(Number) as number,
        },
        {
          file: 'scenarios/s.yaml',
          pointer: '/task/policy',
          message: '"policies/procurement-policy.md" is not in the bundle',
          line: 29,
        },
        {
          file: 'scenarios/s.yaml',
          pointer: '/policies/0',
          message: '"policies/procurement.yaml" is not in the bundle',
          line: 59,
        },
      ],
    });
  });
});
