import {
  ExactInteger,
  exactIntegersIn,
  holdsExactInteger,
  parseExact,
  replaceExactIntegers,
  stringifyExact,
} from './exact-integers';

describe('exact integers', () => {
  it('keeps an integer beyond 2^53 as its digits from text back to the same text', () => {
    const text = '{"size":9007199254740993,"neg":-9223372036854775808,"list":[12345678901234567890,1],"n":1.5}';
    const parsed = parseExact(text) as { size: unknown; neg: unknown; list: unknown[]; n: unknown };
    expect(parsed.size).toBeInstanceOf(ExactInteger);
    expect(String(parsed.size)).toBe('9007199254740993');
    expect((parsed.neg as ExactInteger).toBigInt()).toBe(-(2n ** 63n));
    expect(parsed.list[1]).toBe(1);
    expect(parsed.n).toBe(1.5);
    expect(stringifyExact(parsed)).toBe(text);
    expect(JSON.parse(stringifyExact(parsed, 2))).toEqual(JSON.parse(text));
  });

  it('keeps an integer beyond 2^53 written with a fraction or an exponent as its digits', () => {
    const text = '{"a":9007199254740993.0,"b":1e20,"c":9.007199254740993e15,"d":-1.2E+19,"e":[90071992547409930e-1]}';
    expect(stringifyExact(parseExact(text))).toBe(
      '{"a":9007199254740993,"b":100000000000000000000,"c":9007199254740993,"d":-12000000000000000000,' +
        '"e":[9007199254740993]}',
    );
    expect(parseExact('1e20')).toBeInstanceOf(ExactInteger);
  });

  it('leaves to JSON.parse a literal with a fractional part, or one whose exponent would expand past 40 digits', () => {
    const text = '{"half":9007199254740993.5,"huge":1.5e300,"far":1e40,"endless":1e100000,"small":2.5e3}';
    const parsed = parseExact(text);
    expect(parsed).toEqual(JSON.parse(text));
    expect(holdsExactInteger(parsed)).toBe(false);
    expect(String(parseExact('[1e39]'))).toBe(`1${'0'.repeat(39)}`);
  });

  it('is JSON.parse alone for a text whose strings merely look like exponents (ids, UUIDs)', () => {
    const parse = jest.spyOn(JSON, 'parse');
    const value = parseExact('{"id":"123e4567-e89b-12d3","ratio":2.5e-3,"code":"1E9"}');
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
    expect(value).toEqual({ id: '123e4567-e89b-12d3', ratio: 0.0025, code: '1E9' });
  });

  it('leaves every number JavaScript holds exactly as JSON.parse makes it', () => {
    const text = '{"safe":9007199254740991,"float":12345678901234567.5,"exp":1e15,"tiny":-0.000001}';
    expect(parseExact(text)).toEqual(JSON.parse(text));
    expect(holdsExactInteger(parseExact(text))).toBe(false);
  });

  it('is JSON.parse itself for a text without a run of 16 digits (the same object graph, nothing boxed)', () => {
    const parse = jest.spyOn(JSON, 'parse');
    const value = parseExact('{"a":[1,2,{"b":"123456789012345"}]}');
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
    expect(value).toEqual({ a: [1, 2, { b: '123456789012345' }] });
  });

  it('never leaks its sentinel: not for digits in strings, keys, or text that looks like it', () => {
    const value = {
      digits: '9007199254740993',
      escaped: '\\u0000123',
      quoted: '"\\u0000123"',
      [String(new ExactInteger('9007199254740993'))]: new ExactInteger('-9007199254740993'),
    };
    const text = stringifyExact(value);
    expect(text).not.toContain('\\u0000123"}');
    expect(text).toContain('"9007199254740993":-9007199254740993');
    expect(text).not.toContain('\\u0000-');
    const back = parseExact(text) as Record<string, unknown>;
    expect(String(back['9007199254740993'])).toBe('-9007199254740993');
    expect([back.digits, back.escaped, back.quoted]).toEqual([value.digits, value.escaped, value.quoted]);
    expect(stringifyExact({ plain: 1 })).toBe('{"plain":1}');
  });

  it('fails like JSON.parse on a malformed text, and keeps JSON.parse reading of a key given twice', () => {
    expect(() => parseExact('{"a":12345678901234567890')).toThrow(SyntaxError);
    const twice = parseExact('{"a":12345678901234567890,"a":2}');
    expect(twice).toEqual({ a: 2 });
  });

  it('shows no digits to generic walkers (redaction, copies from entries), but orders among numbers', () => {
    const boxed = new ExactInteger('9007199254740993');
    expect(Object.entries(boxed)).toEqual([]);
    expect(+boxed).toBe(9007199254740992);
    expect(() => new ExactInteger('1.5')).toThrow('not an integer literal');
  });

  it('finds and replaces boxes where they are, copying only what holds one', () => {
    const untouched = { a: [1] };
    const root = { untouched, deep: [{ size: new ExactInteger('9007199254740993') }] };
    expect(exactIntegersIn(root).map(({ path, value }) => [path, value.digits])).toEqual([
      [['deep', '0', 'size'], '9007199254740993'],
    ]);
    const replaced = replaceExactIntegers(root, (boxed) => boxed.valueOf()) as typeof root;
    expect(replaced.deep[0].size).toBe(9007199254740992);
    expect(replaced.untouched).toBe(untouched);
    expect(root.deep[0].size).toBeInstanceOf(ExactInteger);
  });
});
