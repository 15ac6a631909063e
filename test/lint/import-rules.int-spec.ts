import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { repositoryRoot } from '@test/support/cli-runner';

/** Runs the import rules exactly as `npm run lint` does, on the given folders: the exit code and the report. */
const cruise = async (roots: string[]): Promise<{ code: number; report: string }> => {
  const cli = path.join(repositoryRoot, 'node_modules', '.bin', 'depcruise');
  try {
    const { stdout } = await promisify(execFile)(cli, [...roots, '--config', '.dependency-cruiser.js'], {
      cwd: repositoryRoot,
    });
    return { code: 0, report: stdout };
  } catch (error) {
    const { code, stdout } = error as { code?: unknown; stdout?: string };
    if (typeof code !== 'number' || stdout === undefined) {
      throw error;
    }
    return { code, report: stdout };
  }
};

/** Writes files (path → source) inside the project, where the lint scope sees them. */
const plant = (files: Record<string, string>): void => {
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repositoryRoot, file)), { recursive: true });
    fs.writeFileSync(path.join(repositoryRoot, file), source);
  }
};

describe('import rules', () => {
  // Folders of their own, named for this process, so a failed run leaves nothing another run would trip over.
  const lib = `libs/planted-${process.pid}`;
  const app = `apps/planted-${process.pid}`;

  afterEach(() => {
    for (const folder of [lib, app]) {
      fs.rmSync(path.join(repositoryRoot, folder), { recursive: true, force: true });
    }
  });

  it('refuses two files that import each other, and not a file that imports another', async () => {
    plant({
      [`${lib}/src/first.ts`]: "import { second } from './second';\n\nexport const first = (): string => second();\n",
      [`${lib}/src/second.ts`]:
        "import { first } from './first';\n\nexport const second = (): string => typeof first;\n",
      [`${lib}/src/third.ts`]: "import { second } from './second';\n\nexport const third = second;\n",
    });

    const { code, report } = await cruise([lib]);

    expect(code).not.toBe(0);
    expect(report).toMatch(new RegExp(`no-cycle: ${lib}/src/(first|second)[.]ts`));
    expect(report).not.toContain('third.ts');
  });

  it('refuses a cycle that runs through libraries’ indexes', async () => {
    const other = `${lib}-other`;
    plant({
      [`${lib}/src/index.ts`]: "export * from './first';\n",
      [`${lib}/src/first.ts`]: `import { second } from '@libs/planted-${process.pid}-other';\n\nexport const first = second;\n`,
      [`${other}/src/index.ts`]: "export * from './second';\n",
      [`${other}/src/second.ts`]: `import type { first } from '@libs/planted-${process.pid}';\n\nexport const second = (f?: typeof first) => f;\n`,
    });
    try {
      const { code, report } = await cruise([lib]);

      expect(code).not.toBe(0);
      expect(report).toMatch(/no-cycle: .*planted/);
    } finally {
      fs.rmSync(path.join(repositoryRoot, other), { recursive: true, force: true });
    }
  });

  it('refuses a leaf library reading another library', async () => {
    const leafFile = `libs/stack-model/src/planted-${process.pid}.ts`;
    plant({ [leafFile]: "export { ruleKinds } from '@libs/graders';\n" });
    try {
      const { code, report } = await cruise([leafFile]);

      expect(code).not.toBe(0);
      expect(report).toContain(`leaf-libraries: ${leafFile} → libs/graders/src/index.ts`);
    } finally {
      fs.rmSync(path.join(repositoryRoot, leafFile), { force: true });
    }
  });

  it('refuses an app importing another app, and a library importing an app', async () => {
    plant({
      [`${app}/src/main.ts`]: "import { createApiApp } from '@api/bootstrap';\n\nexport const start = createApiApp;\n",
      [`${lib}/src/index.ts`]: "import { createApiApp } from '@api/bootstrap';\n\nexport const start = createApiApp;\n",
    });

    const { code, report } = await cruise([app, lib]);

    expect(code).not.toBe(0);
    expect(report).toContain(`no-app-to-app: ${app}/src/main.ts → apps/api/src/bootstrap.ts`);
    expect(report).toContain(`no-lib-to-app: ${lib}/src/index.ts → apps/api/src/bootstrap.ts`);
  });
});
