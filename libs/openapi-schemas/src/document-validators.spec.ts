import * as fs from 'node:fs';
import * as path from 'node:path';

import * as jsYaml from 'js-yaml';

import { DocumentValidators } from './document-validators';

const fixtures = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'fidelity', 'robust');
const load = (name: string): Record<string, unknown> =>
  jsYaml.load(fs.readFileSync(path.join(fixtures, name), 'utf8')) as Record<string, unknown>;

/** Real: ajv on specs written for the test. Mocked: nothing. */
describe(DocumentValidators.name, () => {
  it('never shows example data to ajv: a templated $id in examples and x- extensions is data, not an identity', () => {
    const sut = new DocumentValidators(load('id-in-examples.yaml'), 'openapi-3.1');
    const validate = sut.validator('/components/schemas/RegisteredSchema');
    expect(validate({ name: 'order', document: { $id: 'https://{host}/schemas/order' } })).toBe(true);
    expect(validate({ document: {} })).toBe(false);
    expect(sut.failures).toEqual([]);
  });

  it('lets nullable widen the type and not an enum: null is a value of a nullable enum only when the enum lists it', () => {
    const sut = new DocumentValidators(
      {
        openapi: '3.0.3',
        components: {
          schemas: {
            Colour: { type: 'string', enum: ['red', 'blue'], nullable: true },
            Shade: { type: 'string', enum: ['light', 'dark', null], nullable: true },
            Note: { type: 'string', nullable: true },
          },
        },
      },
      'openapi-3.0',
    );
    const colour = sut.validator('/components/schemas/Colour');
    expect(colour('red')).toBe(true);
    expect(colour(null)).toBe(false);
    expect(sut.validator('/components/schemas/Shade')(null)).toBe(true);
    expect(sut.validator('/components/schemas/Note')(null)).toBe(true);
  });

  it('drops an identity ajv refuses, names where it was, and still validates the rest of the document', () => {
    const sut = new DocumentValidators(load('id-in-schema.yaml'), 'openapi-3.1');
    const validate = sut.validator('/paths/~1widgets/post/requestBody/content/application~1json/schema');
    expect(validate({ name: 'gear' })).toBe(true);
    expect(validate({})).toBe(false);
    expect(sut.failures).toEqual([
      {
        pointer: '/components/schemas/Widget/$id',
        message: expect.stringMatching(
          /^its \$id "https:\/\/\{host\}\/schemas\/widget" is refused \(.+\); the twin ignores it$/,
        ),
        stillValidated: true,
      },
    ]);
  });

  it('reads a property required twice once, for the document and for a schema taken from it', () => {
    const document = load('duplicate-required.yaml');
    const sut = new DocumentValidators(document, 'openapi-3.0');
    const ticket = (document.components as { schemas: { Ticket: object } }).schemas.Ticket;
    for (const validate of [sut.validator('/components/schemas/Ticket'), sut.validatorForSchema(ticket)]) {
      expect(validate({ subject: 'Printer', status: 'open' })).toBe(true);
      expect(validate({ status: 'open' })).toBe(false);
    }
    expect(sut.failures).toEqual([]);
  });
});
