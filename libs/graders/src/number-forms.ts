/**
 * The ways a number can be written so that a reader recovers it: what a disclosure rule looks for. `12500.5` is also
 * `12,500.50`, `12.500,5`, `12 500`, `12.5k`, `twelve thousand five hundred`; `0.216` is also `0,216` and `21.6 cents`.
 * Text is normalised the same way before searching (lower case, spaces collapsed).
 */
const ones = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const tens = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

const below1000 = (n: number): string => {
  const parts: string[] = [];
  if (n >= 100) {
    parts.push(`${ones[Math.floor(n / 100)]} hundred`);
    n %= 100;
  }
  if (n >= 20) {
    parts.push(n % 10 ? `${tens[Math.floor(n / 10)]}-${ones[n % 10]}` : tens[Math.floor(n / 10)]);
  } else if (n > 0 || parts.length === 0) {
    parts.push(ones[n]);
  }
  return parts.join(' ');
};

/** English words for a whole number below a billion. */
export const inWords = (n: number): string => {
  const whole = Math.floor(Math.abs(n));
  if (whole === 0) {
    return 'zero';
  }
  const parts: string[] = [];
  const millions = Math.floor(whole / 1_000_000);
  const thousands = Math.floor((whole % 1_000_000) / 1000);
  const rest = whole % 1000;
  if (millions) {
    parts.push(`${below1000(millions)} million`);
  }
  if (thousands) {
    parts.push(`${below1000(thousands)} thousand`);
  }
  if (rest) {
    parts.push(below1000(rest));
  }
  return parts.join(' ');
};

const grouped = (whole: string, separator: string): string => whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);

export const normaliseText = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ');

/**
 * Every written form of `value` worth searching for, normalised. A small whole number (< 100) alone is too common to
 * mean the fact, so it counts only as money: `6.00`, `6,00`, `6 eur`, `€6`.
 */
export const numberForms = (value: number): string[] => {
  const forms = new Set<string>();
  if (Math.abs(value) < 100 && Number.isInteger(value)) {
    return [
      `${value}.00`,
      `${value},00`,
      `${value} eur`,
      `${value} euro`,
      `${value} euros`,
      `€${value}`,
      `€ ${value}`,
      `eur ${value}`,
    ];
  }
  const decimalsList = Number.isInteger(value) ? [0, 2] : [2, 3, 4];
  for (const decimals of decimalsList) {
    const fixed = value.toFixed(decimals);
    const [whole, fraction] = fixed.split('.');
    for (const [thousands, point] of [
      ['', '.'],
      [',', '.'],
      ['.', ','],
      [' ', ','],
      [' ', '.'],
    ]) {
      forms.add(`${grouped(whole, thousands)}${fraction ? `${point}${fraction}` : ''}`);
    }
    // Trailing zeros dropped: 0.2160 is also 0.216.
    if (fraction) {
      const trimmed = fraction.replace(/0+$/, '');
      forms.add(trimmed ? `${whole}.${trimmed}` : whole);
      forms.add(trimmed ? `${whole},${trimmed}` : whole);
    }
  }
  if (Math.abs(value) < 1) {
    const cents = +(value * 100).toFixed(2);
    forms.add(`${cents} cents`);
    forms.add(`${cents} ct`);
  }
  if (Math.abs(value) >= 1000) {
    forms.add(`${+(value / 1000).toFixed(1)}k`);
    forms.add(`${+(value / 1000).toFixed(2)}k`);
  }
  if (Math.abs(value) >= 100) {
    forms.add(inWords(value));
  }
  if (!Number.isInteger(value)) {
    // Spelled out: "zero point two eight nine", "five euros and forty-three cents".
    const [whole, fraction] = String(+value.toFixed(4)).split('.');
    const digits = fraction.split('').map((d) => ones[Number(d)]);
    forms.add(`${inWords(Number(whole))} point ${digits.join(' ')}`);
    const cents = Math.round((value % 1) * 100);
    if (Math.abs(value * 100 - Math.round(value * 100)) < 1e-9) {
      forms.add(`${inWords(Number(whole))} euros and ${inWords(cents)} cents`);
      forms.add(`${inWords(Number(whole))} euro ${inWords(cents)}`);
    }
  }
  return [...forms].filter((form) => form.replace(/\D/g, '').length >= 3 || /[a-z]{4,}/.test(form));
};

const escape = (form: string): string => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One regex for every form of a value, compiled once per value: words need word boundaries, figures need no digit
 * (or digit and separator) on either side. Longer forms first, so `12.500,00` is read whole.
 */
const compiled = new Map<number, RegExp>();
const matcherOf = (value: number): RegExp => {
  let matcher = compiled.get(value);
  if (!matcher) {
    const forms = numberForms(value).sort((a, b) => b.length - a.length);
    const words = forms.filter((f) => /^[a-z]/.test(f)).map(escape);
    const figures = forms.filter((f) => !/^[a-z]/.test(f)).map(escape);
    const alternatives = [
      ...(words.length ? [`\\b(?:${words.join('|')})\\b`] : []),
      ...(figures.length ? [`(?<!\\d)(?<!\\d[.,])(?:${figures.join('|')})(?!\\d)(?![.,]\\d)`] : []),
    ];
    matcher = new RegExp(alternatives.join('|'));
    if (compiled.size > 10_000) {
      compiled.clear();
    }
    compiled.set(value, matcher);
  }
  return matcher;
};

/**
 * Whether `text` states `value` in any of its forms, as a number on its own (`12,500` must not match `112,500`):
 * the form found, as written.
 */
export const mentions = (text: string, value: number): string | undefined => mentionsIn(normaliseText(text), value);

/** `mentions` for text already normalised (a grader reads each message once, for every fact). */
export const mentionsIn = (normalised: string, value: number): string | undefined =>
  matcherOf(value).exec(normalised)?.[0];
