import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { cachedCliPath, locateTemporalCli, temporalCliModule } from './temporal-cli-locator';

/** Fake executables stand in for the real CLI and Go, so each branch runs in milliseconds. */
const scratch = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-locator-'));

const executable = (file: string, script: string): string => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return file;
};

const fakeCli = 'echo "temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)"';

const recorder = () => {
  const lines: string[] = [];
  return { log: { log: (line: string) => lines.push(line) }, lines };
};

describe(locateTemporalCli.name, () => {
  it('prefers a CLI on PATH', async () => {
    const dir = scratch();
    const cli = executable(path.join(dir, 'bin', 'temporal'), fakeCli);
    const { log, lines } = recorder();
    await expect(
      locateTemporalCli({ searchPath: path.join(dir, 'bin'), cacheDir: path.join(dir, 'cache'), log }),
    ).resolves.toEqual({
      source: 'path',
      executable: cli,
    });
    expect(lines).toEqual([`temporal: using the CLI on PATH (${cli})`]);
  });

  it('skips a `temporal` on PATH that is not the Temporal CLI', async () => {
    const dir = scratch();
    executable(path.join(dir, 'bin', 'temporal'), 'echo "some other tool"');
    const cached = executable(cachedCliPath(path.join(dir, 'cache')), fakeCli);
    const { log } = recorder();
    await expect(
      locateTemporalCli({ searchPath: path.join(dir, 'bin'), cacheDir: path.join(dir, 'cache'), log }),
    ).resolves.toEqual({
      source: 'cache',
      executable: cached,
    });
  });

  it('builds the CLI with Go into the cache when there is none', async () => {
    const dir = scratch();
    const argsFile = path.join(dir, 'go-args');
    // The fake `go install` records its arguments and drops a CLI into GOBIN, as the real one does.
    const built = executable(path.join(dir, 'built-temporal'), fakeCli);
    const go = executable(path.join(dir, 'go'), `echo "$@" > ${argsFile}\ncp ${built} "$GOBIN/temporal"`);
    const { log, lines } = recorder();
    const located = await locateTemporalCli({ searchPath: '', cacheDir: path.join(dir, 'cache'), goBinary: go, log });
    expect(located).toEqual({ source: 'go-install', executable: cachedCliPath(path.join(dir, 'cache')) });
    expect(fs.readFileSync(argsFile, 'utf8').trim()).toBe(`install ${temporalCliModule}`);
    expect(lines[0]).toMatch(/building github.com\/temporalio\/cli\/cmd\/temporal@v1.5.1 with Go/);
  });

  it('falls back to the SDK download when the Go build fails', async () => {
    const dir = scratch();
    const go = executable(path.join(dir, 'go'), 'echo "go: module lookup disabled" >&2; exit 1');
    const { log, lines } = recorder();
    await expect(
      locateTemporalCli({ searchPath: '', cacheDir: path.join(dir, 'cache'), goBinary: go, log }),
    ).resolves.toEqual({
      source: 'sdk-download',
    });
    expect(lines).toContain('temporal: go install exited with 1: go: module lookup disabled');
    expect(lines[lines.length - 1]).toBe('temporal: no CLI found; the Temporal SDK will download one');
  });
});
