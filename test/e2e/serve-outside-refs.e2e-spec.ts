import * as fs from 'node:fs';
import * as path from 'node:path';

import { sharedSpecsDir } from '@test/support/bundle-fixtures';
import { runCli } from '@test/support/cli-runner';
import { serve } from '@test/support/serve-runner';
import { createTestDatabase } from '@test/support/test-services';

/** A spec the shared specs spread over sibling folders: its entry file's `$ref`s reach `../common`. */
const spreadSpec = (): string => {
  const { specs } = JSON.parse(fs.readFileSync(path.join(sharedSpecsDir(), 'manifest.json'), 'utf8')) as {
    specs: { file: string; kind?: string }[];
  };
  const tree = specs.find((s) => s.kind === 'tree');
  if (!tree) {
    throw new Error('the shared specs hold no spec spread over folders');
  }
  return path.join(sharedSpecsDir(), tree.file);
};

/** Real: the built CLI, PostgreSQL. Mocked: nothing. */
describe('mirror serve and a lone spec’s outside references', () => {
  it('refuses them with the location and the flag to pass, and serves the spec once the user asks', async () => {
    const database = await createTestDatabase();
    try {
      const refused = await runCli(['serve', spreadSpec(), '--port', '0', '--json'], { DATABASE_URL: database.url });
      expect(refused.code).toBe(2);
      // With --json the refusal is JSON on stdout, each problem at its place.
      const problems = JSON.parse(refused.stdout) as { errors: { location: string; message: string }[] };
      expect(problems.errors[0]?.location).toMatch(/\.yaml:\d+#\/paths\//);
      expect(problems.errors[0]?.message).toMatch(/points outside the bundle .*--allow-outside-refs/);

      const served = await serve(database.url, [spreadSpec(), '--allow-outside-refs']);
      try {
        expect(served.ready.services).toHaveLength(1);
      } finally {
        served.child.kill('SIGTERM');
        await new Promise((resolve) => served.child.once('close', resolve));
      }
    } finally {
      await database.drop();
    }
  });
});
