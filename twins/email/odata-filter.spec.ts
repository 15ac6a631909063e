import { compileFilter, compileOrderBy, FilterError } from './odata-filter';

const message = {
  subject: 'RE: Quote for M8 bolts',
  isRead: false,
  importance: 'high',
  receivedDateTime: '2026-06-01T09:00:05Z',
  from: { emailAddress: { name: 'Efrain Funk', address: 'Efrain.Funk@gorczany-fasteners.se' } },
  toRecipients: [{ emailAddress: { address: 'procurement.assistant@acme.example' } }],
  categories: ['Supplier'],
};

describe(compileFilter.name, () => {
  it.each([
    ['isRead eq false', true],
    ['isRead eq true', false],
    ["from/emailAddress/address eq 'efrain.funk@gorczany-fasteners.se'", true],
    ["contains(subject,'m8') and importance eq 'high'", true],
    ["startswith(subject, 'FW:')", false],
    ["toRecipients/any(r: r/emailAddress/address eq 'procurement.assistant@acme.example')", true],
    ["categories/any(c:c eq 'Internal')", false],
    ['receivedDateTime ge 2026-06-01T09:00:00Z and receivedDateTime lt 2026-06-02T00:00:00.000Z', true],
    // `not` binds tighter than `or`: (not false) or false.
    ["not (isRead eq true) or importance eq 'low'", true],
    ["not isRead eq false or importance eq 'low'", false],
    ["subject eq 'it''s'", false],
  ])('%s → %s', (filter, expected) => {
    expect(compileFilter(filter)(message)).toBe(expected);
  });

  it.each([
    ['isRead eq false and', /expected more at the end/],
    ["frobnicate(subject,'x')", /unsupported function "frobnicate"/],
    ['isRead eq false )', /unexpected "\)"/],
    ['subject eq "double quoted"', /unexpected/],
  ])('refuses %s with a message naming the spot', (filter, message) => {
    expect(() => compileFilter(filter)).toThrow(FilterError);
    expect(() => compileFilter(filter)).toThrow(message);
  });
});

describe(compileOrderBy.name, () => {
  it('orders by several keys, dates as instants and text without case', () => {
    const rows = [
      { receivedDateTime: '2026-06-01T09:00:00Z', subject: 'b' },
      { receivedDateTime: '2026-06-01T10:00:00+02:00', subject: 'A' },
      { receivedDateTime: '2026-06-01T09:00:00Z', subject: 'a' },
    ];
    const sorted = [...rows].sort(compileOrderBy('receivedDateTime desc, subject asc'));
    expect(sorted.map((r) => r.subject)).toEqual(['a', 'b', 'A']);
    expect(() => compileOrderBy('subject sideways')).toThrow('cannot order by "subject sideways"');
  });
});
