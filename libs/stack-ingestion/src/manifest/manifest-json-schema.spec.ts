import * as fs from 'node:fs';
import * as path from 'node:path';

import Ajv from 'ajv';
import * as yaml from 'js-yaml';

import { manifestJsonSchema } from './manifest-json-schema';

const root = path.join(__dirname, '..', '..', '..', '..');

/** Real: the committed schema file and bundle manifests, read from disk. */
describe('the published mirror.yaml JSON Schema', () => {
  it('is what the manifest schema generates today (refresh: mirror schema manifest > libs/stack-ingestion/manifest.schema.json)', () => {
    const published: unknown = JSON.parse(
      fs.readFileSync(path.join(root, 'libs', 'stack-ingestion', 'manifest.schema.json'), 'utf8'),
    );
    expect(published).toEqual(manifestJsonSchema());
  });

  it('accepts a manifest with behaviours and refuses a misspelt section', () => {
    const validate = new Ajv({ strict: false }).compile(manifestJsonSchema());
    const file = path.join(root, 'test', 'fixtures', 'fidelity', 'actions', 'helpdesk', 'mirror.yaml');
    const manifest = yaml.load(fs.readFileSync(file, 'utf8')) as { services: Record<string, unknown>[] };
    expect({ valid: validate(manifest), errors: validate.errors }).toEqual({ valid: true, errors: null });
    manifest.services[0].behaviours = { stateMachine: [] };
    expect(validate(manifest)).toBe(false);
  });
});
