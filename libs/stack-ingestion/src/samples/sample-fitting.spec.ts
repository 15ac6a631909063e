import { fitField, fitRecords } from './sample-fitting';
import { parseCsv } from './sample-reader';

describe(fitField.name, () => {
  it.each<[string, unknown[], unknown]>([
    [
      'status',
      ['active', 'active', 'active', 'blocked'],
      {
        kind: 'categorical',
        values: [
          { value: 'active', weight: 0.75 },
          { value: 'blocked', weight: 0.25 },
        ],
      },
    ],
    ['amount', [10.5, 99, 42], { kind: 'numeric', min: 10.5, max: 99, integer: false }],
    [
      'payment_terms_days',
      [30, 30, 60, 30],
      {
        kind: 'categorical',
        values: [
          { value: 30, weight: 0.75 },
          { value: 60, weight: 0.25 },
        ],
      },
    ],
    [
      'created_at',
      ['2024-01-01T00:00:00Z', '2025-06-30T12:00:00Z'],
      { kind: 'date', from: '2024-01-01T00:00:00.000Z', to: '2025-06-30T12:00:00.000Z' },
    ],
    [
      'reference',
      ['PO-1', 'PO-2', 'PO-13'],
      {
        kind: 'text',
        minLength: 4,
        maxLength: 5,
        shapes: {
          masks: [
            { value: 'AA-9', weight: 2 / 3 },
            { value: 'AA-99', weight: 1 / 3 },
          ],
          prefix: 'PO-',
        },
      },
    ],
    ['login', ['ann', 'bob'], { kind: 'text', minLength: 3, maxLength: 3 }],
    ['api_key', ['abc'], { kind: 'redacted', reason: 'its name says it holds a secret' }],
    ['contact_email', ['x'], { kind: 'redacted', reason: 'its name says it holds personal data' }],
    [
      'owner',
      ['ann@example.com', 'bob@example.org'],
      { kind: 'redacted', reason: 'its values look like email addresses' },
    ],
    [
      'note',
      ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc'],
      { kind: 'redacted', reason: 'its values look like JSON web tokens' },
    ],
    ['payer', ['4111 1111 1111 1111'], { kind: 'redacted', reason: 'its values look like card-like numbers' }],
    ['empty', [null, ''], undefined],
  ])('fits %s from %j', (field, values, expected) => {
    expect(fitField(field, values)).toEqual(expected);
  });

  it("keeps of a person's name field only its lengths, even when a few people recur as a category would", () => {
    const owners = ['Maria Keller', 'Maria Keller', 'Tom Brandt', 'Tom Brandt', 'Maria Keller', 'Tom Brandt'];
    for (const field of ['contact_name', 'ownerName', 'display_name', 'given_name']) {
      expect(fitField(field, owners)).toEqual({ kind: 'text', minLength: 10, maxLength: 12 });
    }
    // A company's or a product's name recurring is still a category: only people's names are held back.
    expect(fitField('product_name', owners)).toMatchObject({ kind: 'categorical' });
  });

  it('never keeps a redacted or free-text value anywhere in a profile', () => {
    const profile = fitRecords([
      { id: 'a-1', email: 'secret.person@corp.example', token: 'sk_live_123456789012', note: 'call after 5' },
      { id: 'a-2', email: 'other.person@corp.example', token: 'sk_live_987654321098', note: 'urgent' },
    ]);
    expect(JSON.stringify(profile)).not.toMatch(/corp\.example|sk_live|call after|a-1/);
  });

  it('keeps of prose only the words several records share: no names, no figures, no whole value', () => {
    const fitted = fitField('subject', [
      'Refund the duplicate charge for Jane Doe',
      'Duplicate charge on invoice 4471',
      'Refund the late fee on the invoice',
      'Invoice charge disputed by Jane',
    ]);
    expect(fitted).toMatchObject({ kind: 'text', prose: { minWords: 4, maxWords: 7 } });
    const prose = (fitted as { prose: { words: { value: string }[]; starts: unknown[]; pairs: unknown[] } }).prose;
    expect(prose.words.map((w) => w.value).sort()).toEqual(['charge', 'duplicate', 'invoice', 'on', 'refund', 'the']);
    expect(prose.pairs).toEqual(expect.arrayContaining([{ from: 'refund', to: 'the', weight: expect.any(Number) }]));
    expect(JSON.stringify(fitted)).not.toMatch(/jane|doe|4471|late fee/i);
  });
});

describe('the shape of codes', () => {
  it('keeps character classes and a shared convention prefix, never a value or a name-like prefix', () => {
    const fitted = fitField('username', ['annab1', 'annaz2', 'annaq3']);
    expect(fitted).toMatchObject({ kind: 'text', shapes: { masks: [{ value: 'aaaaa9', weight: 1 }], prefix: '' } });
    expect(JSON.stringify(fitted)).not.toMatch(/anna/);
  });

  it('leaves names and multi-word values without a shape', () => {
    expect(fitField('name', ['Acme', 'Bolt', 'Nutco'])).toEqual({ kind: 'text', minLength: 4, maxLength: 5 });
    expect(fitField('displayName', ['Ann-1', 'Bob-2', 'Cy-3'])).toEqual({ kind: 'text', minLength: 4, maxLength: 5 });
  });
});

describe(parseCsv.name, () => {
  it('reads quoted fields with commas, quotes and newlines, and types numbers and booleans', () => {
    expect(parseCsv('s.csv', 'name,count,ok\n"Bolt, ""Nut""\nGmbH",3,true\n')).toEqual([
      { name: 'Bolt, "Nut"\nGmbH', count: 3, ok: true },
    ]);
  });

  it('refuses a row with the wrong number of fields, naming its line', () => {
    expect(() => parseCsv('s.csv', 'a,b\n1,2\n3\n')).toThrow('s.csv:3: invalid CSV: 1 fields where the header has 2');
  });
});
