import * as fs from 'node:fs';
import * as path from 'node:path';

import Ajv from 'ajv';
import * as yaml from 'js-yaml';

import { scenarioJsonSchema } from './scenario-json-schema';

const examples = path.join(__dirname, '..', '..', '..', 'examples', 'acme-manufacturing', 'scenarios');

/** Real: the committed schema file and the example company's scenario files, read from disk. */
describe('the published scenario JSON Schema', () => {
  it('is what the scenario schema generates today (refresh: mirror schema scenario > libs/scenarios/scenario.schema.json)', () => {
    const published: unknown = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'scenario.schema.json'), 'utf8'));
    expect(published).toEqual(scenarioJsonSchema());
  });

  it('accepts the example company’s scenarios with a standard validator', () => {
    const ajv = new Ajv({ strict: false });
    const validate = ajv.compile(scenarioJsonSchema());
    for (const file of fs.readdirSync(examples)) {
      const scenario: unknown = yaml.load(fs.readFileSync(path.join(examples, file), 'utf8'));
      expect({ file, valid: validate(scenario), errors: validate.errors }).toEqual({ file, valid: true, errors: null });
    }
  });
});
