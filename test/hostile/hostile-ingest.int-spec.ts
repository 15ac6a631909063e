import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { writeBundle } from '@test/support/bundle-fixtures';
import { formatProblem, IngestionError } from '@libs/bundle-documents';
import { ingestStack, StackInput } from '@libs/stack-ingestion';

import {
  billionLaughsYaml,
  deepJson,
  deepYaml,
  duplicateKeyYaml,
  nulSpecJson,
  outsideReferenceSpec,
  referenceFanOut,
  wideReferenceFanOut,
} from './hostile-specs';

/**
 * Time bounds here tell a bounded refusal from an unbounded one (hours: 2^34 backtracking steps, 10^8 nodes), not
 * fast from slow: a loaded CI machine ran the 10^8 fan-out refusal in 12 s once. Speed belongs in the benchmarks.
 */
const UNBOUNDED_SECONDS = 60;

/**
 * Hostile bundles against the ingestion pipeline itself: real files on disk, nothing mocked. Each must be refused
 * with a located problem, quickly and without filling memory. The bounds are generous (a loaded machine is slow),
 * yet orders of magnitude below what the attacks cost unbounded (minutes and gigabytes).
 */
const refusal = async (
  input: StackInput,
): Promise<{ code: string; messages: string[]; seconds: number; mb: number }> => {
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  try {
    await ingestStack(input);
  } catch (error) {
    if (error instanceof IngestionError) {
      return {
        code: error.code,
        messages: error.problems.map(formatProblem),
        seconds: (performance.now() - started) / 1000,
        mb: (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024,
      };
    }
    throw error;
  }
  throw new Error('the bundle was accepted');
};

const lone = (name: string, text: string, allowOutsideRefs = false): StackInput => ({
  kind: 'path',
  path: path.join(writeBundle({ [name]: text }), name),
  allowOutsideRefs,
});

describe('hostile specs are refused, located, fast and small', () => {
  it('refuses a billion-laughs YAML at the anchor whose aliases blow past the node budget', async () => {
    const result = await refusal(lone('laughs.yaml', billionLaughsYaml()));
    expect(result.code).toBe('DOCUMENT_UNPARSABLE');
    expect(result.messages).toEqual(['laughs.yaml:9#/x-lol6: YAML aliases expand this to more than 1,000,000 nodes']);
    expect(result.seconds).toBeLessThan(UNBOUNDED_SECONDS);
    expect(result.mb).toBeLessThan(300);
  });

  it('refuses the same bomb uploaded', async () => {
    const result = await refusal({ kind: 'upload', name: 'laughs.yaml', content: Buffer.from(billionLaughsYaml()) });
    expect(result.messages[0]).toMatch(/^laughs\.yaml:9#\/x-lol6: YAML aliases expand/);
  });

  it('refuses a 2^40 $ref fan-out through callbacks where it leaves the depth budget', async () => {
    const bundle = writeBundle(referenceFanOut());
    const result = await refusal({ kind: 'path', path: bundle });
    expect(result.code).toBe('REFERENCE_INVALID');
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]).toMatch(/^parts\.json:1#\/P\d+\/.*: nesting deeper than 128 levels once bundled$/);
    expect(result.seconds).toBeLessThan(UNBOUNDED_SECONDS);
    expect(result.mb).toBeLessThan(300);
  });

  it('refuses a shallow 10^8 $ref fan-out at a reference budget', async () => {
    const result = await refusal({ kind: 'path', path: writeBundle(wideReferenceFanOut()) });
    expect(result.code).toBe('REFERENCE_INVALID');
    expect(result.messages[0]).toMatch(
      /^parts\.json:1#\/\S+: (\$refs expand this to more than 1,000,000 nodes once bundled|more than 100,000 \$refs to follow)$/,
    );
    expect(result.seconds).toBeLessThan(UNBOUNDED_SECONDS);
    expect(result.mb).toBeLessThan(300);
  });

  it('refuses 10,000 levels of JSON with the line and pointer where the limit is crossed', async () => {
    const result = await refusal(lone('deep.json', deepJson()));
    expect(result.code).toBe('DOCUMENT_UNPARSABLE');
    expect(result.messages[0]).toMatch(/^deep\.json:1#\/x-deep(\/0)+: nesting deeper than 128 levels$/);
    expect(result.seconds).toBeLessThan(UNBOUNDED_SECONDS);
  });

  it('refuses 10,000 levels of YAML with the line', async () => {
    const result = await refusal(lone('deep.yaml', deepYaml()));
    expect(result.messages[0]).toMatch(/^deep\.yaml:4: invalid YAML: nesting exceeded/);
  });

  it('refuses a duplicate YAML key naming both places instead of dropping an operation', async () => {
    const result = await refusal(lone('dup.yaml', duplicateKeyYaml()));
    expect(result.messages).toEqual([
      'dup.yaml:10: invalid YAML: key "/a" is given twice in one map, at lines 4 and 10; one would silently replace the other',
    ]);
  });

  it('refuses a duplicate JSON key naming both places', async () => {
    const text =
      '{\n "openapi": "3.0.3",\n "info": {"title": "d", "version": "1"},\n "paths": {\n  "/a": {},\n  "/a": {}\n }\n}';
    const result = await refusal(lone('dup.json', text));
    expect(result.messages).toEqual([
      'dup.json:6: invalid JSON: key "/a" is given twice in one object, at lines 5 and 6; one would silently replace the other',
    ]);
  });

  it('refuses a NUL character in a spec string, which no database column can store', async () => {
    const result = await refusal(lone('nul.json', nulSpecJson()));
    expect(result.messages).toEqual([
      'nul.json:1#/info/description: a NUL character (\\u0000) here cannot be stored; remove it',
    ]);
  });

  it('refuses a FIFO given as the spec at once instead of waiting for a writer', async () => {
    const fifo = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-fifo-')), 'api.yaml');
    execFileSync('mkfifo', [fifo]);
    const result = await refusal({ kind: 'path', path: fifo });
    expect(result.code).toBe('BUNDLE_NOT_FOUND');
    expect(result.messages).toEqual([`${fifo}: not a regular file or folder (a pipe, socket or device is never read)`]);
    expect(result.seconds).toBeLessThan(UNBOUNDED_SECONDS);
  });

  it('refuses a character device given as the spec', async () => {
    const result = await refusal({ kind: 'path', path: '/dev/zero' });
    expect(result.messages).toEqual([
      '/dev/zero: not a regular file or folder (a pipe, socket or device is never read)',
    ]);
  });
});

describe('a lone spec reads nothing outside its folder unless its user asks', () => {
  const passwd = '../'.repeat(12) + 'etc/passwd';

  it('refuses $ref to /etc/passwd through ../ and stores nothing', async () => {
    const result = await refusal(lone('api.yaml', outsideReferenceSpec(passwd)));
    expect(result.code).toBe('REFERENCE_INVALID');
    expect(result.messages).toEqual([
      `api.yaml:11#/paths/~1a/get/responses/200/content/application~1json/schema/$ref: $ref "${passwd}" points outside the bundle (the spec file's folder; --allow-outside-refs (mirror ingest, mirror serve) reads further)`,
    ]);
  });

  it('refuses an absolute $ref whatever the user allows', async () => {
    const result = await refusal(lone('api.yaml', outsideReferenceSpec('/etc/passwd'), true));
    expect(result.messages[0]).toMatch(
      /\$ref "\/etc\/passwd" points outside the bundle \(an absolute path is never read\)$/,
    );
  });

  it('refuses, even when allowed, an outside file that is not a JSON or YAML document', async () => {
    const result = await refusal(lone('api.yaml', outsideReferenceSpec(passwd), true));
    expect(result.messages[0]).toMatch(
      /points outside the spec's folder to a file that is not a JSON or YAML document$/,
    );
  });

  it('follows an outside spec document only when allowed, and names it in a warning', async () => {
    const root = writeBundle({
      'shared/schemas.yaml': 'Thing: {type: object, properties: {id: {type: string}}}\n',
      'spec/api.yaml': outsideReferenceSpec('../shared/schemas.yaml#/Thing'),
    });
    const entry = path.join(root, 'spec', 'api.yaml');
    const confined = await refusal({ kind: 'path', path: entry });
    expect(confined.messages[0]).toMatch(/points outside the bundle \(the spec file's folder/);
    const { model } = await ingestStack({ kind: 'path', path: entry, allowOutsideRefs: true });
    expect(model.warnings.map((w) => `${w.location}: ${w.message}`)).toContainEqual(
      "api.yaml:11#/paths/~1a/get/responses/200/content/application~1json/schema/$ref: read ../shared/schemas.yaml, outside the spec's folder (--allow-outside-refs)",
    );
  });
});
