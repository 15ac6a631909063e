import { base, en, Faker } from '@faker-js/faker';

import { DocumentValidators } from '@libs/openapi-schemas';

import { defaultSynthesisOptions, ValueSynthesizer } from './value-synthesizer';

// Slack's published spec (converted from its own format) writes a value's alternatives as a list under `items`.
const document = {
  openapi: '3.0.0',
  info: { title: 't', version: '1' },
  paths: {},
  components: {
    schemas: {
      userId: { type: 'string', pattern: '^[UW][A-Z0-9]{2,}$' },
      group: {
        type: 'object',
        required: ['auto_type', 'deleted_by', 'pair'],
        properties: {
          auto_type: { items: [{ type: 'null' }, { type: 'string', enum: ['owner', 'admin'] }] },
          deleted_by: { items: [{ type: 'null' }, { $ref: '#/components/schemas/userId' }] },
          pair: { type: 'array', items: [{ $ref: '#/components/schemas/userId' }, { type: 'integer', minimum: 5 }] },
        },
      },
    },
  },
};

describe('ValueSynthesizer on tuple `items`', () => {
  const validators = new DocumentValidators(document, 'openapi-3.0');
  const synthesizer = new ValueSynthesizer(document, new Faker({ locale: [en, base] }), defaultSynthesisOptions);

  it('gives a typeless list of alternatives one value of a branch, and a declared tuple a value per position', () => {
    for (let seed = 1; seed <= 30; seed++) {
      synthesizer.faker.seed(seed);
      const group = synthesizer.value({ $ref: '#/components/schemas/group' }) as Record<string, unknown>;
      expect(validators.validator('/components/schemas/group')(group)).toBe(true);
      expect(['owner', 'admin']).toContain(group.auto_type);
      expect(group.deleted_by).toMatch(/^[UW][A-Z0-9]{2,}$/);
      const [user, count] = group.pair as [string, number];
      expect(user).toMatch(/^[UW][A-Z0-9]{2,}$/);
      expect(count).toBeGreaterThanOrEqual(5);
    }
  });
});
