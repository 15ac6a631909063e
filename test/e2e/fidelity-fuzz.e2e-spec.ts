import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { createTestDatabase } from '@test/support/test-services';

interface FidelityReport {
  specs: {
    name: string;
    operations: number;
    exercised: number;
    responses: number;
    conforming: number;
    serverErrors: number;
    failures: Record<string, { count: number; example: unknown }>;
    report: string;
  }[];
}

const spec = path.join(repositoryRoot, 'test', 'fixtures', 'fidelity', 'fuzz', 'notes.yaml');

/** Runs `npm run fidelity`'s script on one spec, as a user would; its own Python setup installs schemathesis. */
const fidelity = (out: string, databaseUrl: string): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(repositoryRoot, 'scripts', 'fidelity.sh'), '--out', out, spec], {
      cwd: repositoryRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });

/**
 * Real: the built CLI serving the spec's twin on PostgreSQL, schemathesis from PyPI with every check and every phase
 * (the stateful one follows the spec's links: create, then read and delete what was created). Mocked: nothing.
 */
describe('npm run fidelity on a small spec', () => {
  it('finds no 5xx and every response conforming to the spec, with every phase run', async () => {
    const database = await createTestDatabase();
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-fidelity-'));
    try {
      const run = await fidelity(out, database.url);
      expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ code: 0, output: '' });

      const report = JSON.parse(fs.readFileSync(path.join(out, 'fidelity.json'), 'utf8')) as FidelityReport;
      expect(report.specs).toHaveLength(1);
      const [notes] = report.specs;
      expect(notes).toMatchObject({ name: 'notes', operations: 4, exercised: 4, serverErrors: 0, failures: {} });
      // Bounded but not empty: three examples per operation and phase still make dozens of checked responses.
      expect(notes.responses).toBeGreaterThan(40);
      expect(notes.conforming).toBe(notes.responses);

      const schemathesis = JSON.parse(fs.readFileSync(notes.report, 'utf8')) as {
        phases: Record<string, { status: string }>;
        test_cases: { generated: number; with_failures: number };
      };
      expect(schemathesis.phases.stateful.status).toBe('success');
      expect(schemathesis.test_cases.with_failures).toBe(0);
      expect(fs.readFileSync(path.join(out, 'fidelity.md'), 'utf8')).toMatch(
        /\| notes \| 4 \/ 4 \| \d+ \| 100\.0 % \| 0 \|/,
      );
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
      await database.drop();
    }
  });
});
