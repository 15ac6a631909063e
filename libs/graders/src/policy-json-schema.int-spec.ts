import * as fs from 'node:fs';
import * as path from 'node:path';

import Ajv from 'ajv';
import * as yaml from 'js-yaml';

import { policyJsonSchema } from './policy-json-schema';

const examples = path.join(__dirname, '..', '..', '..', 'examples', 'acme-manufacturing', 'policies');

/** Real: the committed schema file and the example company's policy sets, read from disk. */
describe('the published policy-set JSON Schema', () => {
  it('is what the policy schema generates today (refresh: mirror schema policy > libs/graders/policy.schema.json)', () => {
    const published: unknown = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'policy.schema.json'), 'utf8'));
    expect(published).toEqual(policyJsonSchema());
  });

  it('accepts the example company’s policy sets with a standard validator and refuses an unknown kind', () => {
    const validate = new Ajv({ strict: false }).compile(policyJsonSchema());
    for (const file of fs.readdirSync(examples).filter((f) => f.endsWith('.yaml'))) {
      const policy: unknown = yaml.load(fs.readFileSync(path.join(examples, file), 'utf8'));
      expect({ file, valid: validate(policy), errors: validate.errors }).toEqual({ file, valid: true, errors: null });
    }
    expect(
      validate({ id: 'p', version: '1', rules: [{ id: 'r', clause: '§', severity: 'major', kind: 'vibes' }] }),
    ).toBe(false);
  });
});
