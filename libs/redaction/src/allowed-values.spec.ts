import { AllowedValues } from './allowed-values';

describe(AllowedValues.name, () => {
  const world = () =>
    AllowedValues.of(
      new Map([
        ['people', [{ email: ' Anna.Berg@Example.com ', phone: '+44 20 7946 0958', note: 'order 4711 for 20 units' }]],
      ]),
      {
        bank: 'DE89 3704 0044 0532 0130 00',
        token: '  xoxb-made-up  ',
        mail: 'cc: Ops <ops@example.com>, legal@example.com',
      },
      new Set(['4539148803436467']),
    );

  it.each([
    ['email', 'anna.berg@example.com', true],
    ['email', 'OPS@example.com', true],
    ['email', 'legal@example.com', true],
    ['email', 'anna.berg@example.org', false],
    ['phone', '+442079460958', true],
    ['phone', '(020) 7946-0958', false],
    ['card', '4539 1488 0343 6467', true],
    ['iban', 'de89370400440532013000', true],
    ['iban', 'DE89 3704 0044 0532 0130 01', false],
    ['secret', 'xoxb-made-up', true],
    ['credential', ' xoxb-made-up ', true],
    ['secret', 'xoxb-made', false],
    // Digits of a string that is not number-like (prose with a number in it) are not a number the world made.
    ['phone', '4711', false],
    ['card', '471120', false],
  ] as const)('for a %s, %j is allowed: %s', (kind, text, allowed) => {
    expect(world().allows(kind, text)).toBe(allowed);
  });

  it('takes values added after it was first asked', () => {
    const sut = world();
    expect(sut.allows('email', 'new@example.com')).toBe(false);

    sut.add('new@example.com');

    expect(sut.allows('email', 'new@example.com')).toBe(true);
  });
});

describe(`${AllowedValues.name}.walking`, () => {
  it('answers as the whole walk would, walking only as far as a question needs', () => {
    const records = new Map([['people', [{ email: 'anna@example.com', phone: '+44 20 7946 0958' }]]]);
    const parties = { supplier: { email: 'Sales@Example.org', aliases: ['sales@example.org'] } };
    const walked = AllowedValues.walking(records, parties);
    const whole = AllowedValues.of(records, parties);
    const read: string[] = [];
    const watched = new Proxy(records, {
      get: (target, property) => {
        read.push(String(property));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const lazily = AllowedValues.walking(watched, parties);

    expect(lazily.allows('email', 'sales@example.org')).toBe(true);
    expect(read).toEqual([]);
    for (const [kind, text] of [
      ['email', 'sales@example.org'],
      ['email', 'ANNA@example.com'],
      ['email', 'bob@example.com'],
      ['phone', '+442079460958'],
      ['phone', '+442079460959'],
    ] as const) {
      expect(walked.allows(kind, text)).toBe(whole.allows(kind, text));
    }
    expect(lazily.allows('phone', '+442079460958')).toBe(true);
    expect(read).not.toEqual([]);
  });
});
