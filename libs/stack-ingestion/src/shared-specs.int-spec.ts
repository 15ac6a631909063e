import * as fs from 'node:fs';
import * as path from 'node:path';

import { sharedSpecsDir } from '@test/support/bundle-fixtures';

import { ingestStack } from './ingest-stack';

/**
 * Real vendor specs (../shared/specs) must all ingest. Real: the files on disk. Mocked: nothing.
 * The counts were read off each spec by hand-checked inference and pin the behaviour against regressions.
 */
/**
 * `redacted`: warnings that a text of the spec (an example or default, a description, a server URL, its `info`) read
 * as a secret or personal data and was redacted at ingest. Beyond examples: each spec's `info.contact.email` (a
 * vendor's role address, kept as `redacted-email@` its domain); Box's `shared_link_password=[password]` in eight
 * header descriptions (a placeholder in brackets, read as a credential) and a support article's Luhn-valid id in a
 * link, twice.
 */
const expected: Record<
  string,
  { operations: number; resources: number; webhooks: number; warnings: number; redacted: number }
> = {
  'oai-petstore': { operations: 3, resources: 1, webhooks: 0, warnings: 0, redacted: 0 },
  'oai-webhook-example': { operations: 0, resources: 0, webhooks: 1, warnings: 0, redacted: 0 },
  // Its entry file reaches ../common: allowed on request, and that read is named in a warning.
  'oai-petstore-separate': { operations: 4, resources: 1, webhooks: 0, warnings: 1, redacted: 1 },
  'xero-projects': { operations: 16, resources: 3, webhooks: 0, warnings: 0, redacted: 4 },
  'twilio-taskrouter': { operations: 61, resources: 11, webhooks: 0, warnings: 0, redacted: 1 },
  'slack-web': { operations: 174, resources: 0, webhooks: 0, warnings: 32, redacted: 7 },
  box: { operations: 296, resources: 52, webhooks: 0, warnings: 19, redacted: 32 },
  // Its kubeconfig example holds a token inside YAML text: a credential in an assignment, redacted like the rest.
  digitalocean: { operations: 659, resources: 114, webhooks: 0, warnings: 0, redacted: 92 },
};

interface ManifestEntry {
  name: string;
  file: string;
  kind: 'file' | 'tree';
}

const specs = (): ManifestEntry[] =>
  (JSON.parse(fs.readFileSync(path.join(sharedSpecsDir(), 'manifest.json'), 'utf8')) as { specs: ManifestEntry[] })
    .specs;

describe('ingesting the shared real-world specs', () => {
  it('knows every spec of the manifest', () => {
    expect(
      specs()
        .map((s) => s.name)
        .sort(),
    ).toEqual(Object.keys(expected).sort());
  });

  const isRedactionWarning = (message: string): boolean => / held a value that reads as /.test(message);

  it.each(Object.keys(expected))('ingests %s with the expected operations and resources', async (name) => {
    const entry = specs().find((s) => s.name === name) as ManifestEntry;
    const { model } = await ingestStack({
      kind: 'path',
      path: path.join(sharedSpecsDir(), entry.file),
      allowOutsideRefs: entry.kind === 'tree',
    });

    const [service] = model.services;
    expect({
      operations: service.operations.length,
      resources: service.resources.length,
      webhooks: service.webhooks.length,
      warnings: model.warnings.filter((w) => !isRedactionWarning(w.message)).length,
      redacted: model.warnings.filter((w) => isRedactionWarning(w.message)).length,
    }).toEqual(expected[name]);
    for (const warning of model.warnings) {
      expect(warning.file).toBeTruthy();
      expect(warning.location).toContain(warning.file);
    }
    // Bundling leaves no reference that points outside the one document.
    const external = JSON.stringify(service.document).match(/"\$ref":"(?!#)[^"]*"/g) ?? [];
    expect(external).toEqual([]);
  });

  it('ingests a multi-file spec given as its folder as well as by its entry file', async () => {
    const tree = specs().filter((s) => s.kind === 'tree');
    for (const entry of tree) {
      const folder = path.join(sharedSpecsDir(), entry.file.split('/')[0]);
      const { model } = await ingestStack({ kind: 'path', path: folder });
      expect(model.services.map((s) => s.operations.length)).toEqual([expected[entry.name].operations]);
    }
  });

  it('gives the same version for the same content (idempotent ingest)', async () => {
    const file = path.join(sharedSpecsDir(), 'xero-projects.yaml');
    const first = await ingestStack({ kind: 'path', path: file });
    const second = await ingestStack({ kind: 'path', path: file });
    expect(second.version).toBe(first.version);
  });

  it('names the place of each warning, e.g. type arrays in Slack’s Swagger 2.0', async () => {
    const { model } = await ingestStack({ kind: 'path', path: path.join(sharedSpecsDir(), 'slack-web.json') });
    expect(model.warnings[0]).toEqual({
      location: 'slack-web.json:2099#/definitions/objs_team/properties/description/type',
      file: 'slack-web.json',
      line: 2099,
      pointer: '/definitions/objs_team/properties/description/type',
      message: 'type arrays are not valid in swagger-2.0; read as a union of null, string',
    });
  });
});
