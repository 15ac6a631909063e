import { DocumentValidators } from './document-validators';

const document = (): Record<string, unknown> => ({
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths: {},
  components: { schemas: { Quantity: { type: 'integer', minimum: 1 } } },
});

/** Real: ajv. Mocked: nothing. */
describe('DocumentValidators.of', () => {
  it('gives every world built on one document the same validators, and another document its own', () => {
    const shared = document();
    expect(DocumentValidators.of(shared, 'openapi-3.0')).toBe(DocumentValidators.of(shared, 'openapi-3.0'));
    expect(DocumentValidators.of(shared, 'openapi-3.0')).not.toBe(DocumentValidators.of(document(), 'openapi-3.0'));
    expect(DocumentValidators.of(shared, 'openapi-3.0')).not.toBe(DocumentValidators.of(shared, 'openapi-3.1'));
  });

  it('compiles a bare reference once whatever object spells it, and validates by what it names', () => {
    const sut = DocumentValidators.of(document(), 'openapi-3.0');
    const first = sut.validatorForSchema({ $ref: '#/components/schemas/Quantity' });
    expect(sut.validatorForSchema({ $ref: '#/components/schemas/Quantity' })).toBe(first);
    expect(first(3)).toBe(true);
    expect(first(0)).toBe(false);
    // A schema with more than the reference is its own schema.
    const nullable = sut.validatorForSchema({ $ref: '#/components/schemas/Quantity', nullable: true });
    expect(nullable).not.toBe(first);
  });

  it('keeps a schema made per call only as long as the caller does (ajv holds no compiled schema of its own)', () => {
    const sut = new DocumentValidators(document(), 'openapi-3.0');
    const cache = (sut as unknown as { ajv: { _cache: Map<object, unknown> } }).ajv._cache;
    const before = cache.size;
    for (let i = 0; i < 50; i++) {
      expect(sut.validatorForSchema({ type: 'string', maxLength: i + 1 })('ab')).toBe(i + 1 >= 2);
    }
    expect(cache.size).toBe(before);
  });
});
