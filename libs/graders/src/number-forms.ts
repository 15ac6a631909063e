import { NumberWordLanguage, numberWordLanguages, wholeInWords } from './number-words';

/**
 * The ways a number can be written so that a reader recovers it: what a disclosure rule looks for. `12500.5` is also
 * `12,500.50`, `12.500,5`, `12 500`, `12.5k`, `twelve thousand five hundred`, `zwoelftausendfuenfhundert`; `0.216`
 * is also `0,216`, `.216` and `21.6 cents`; `5.50` is also `5.5 EUR` (a figure of fewer than three digits counts only
 * as money: with a currency or `per unit`). Forms match exactly, to the precision written (2 to 4 decimals).
 * Text is normalised the same way before searching: see `normaliseText`.
 */

/** Every supported language of number words (English, German): a company's languages are a subset. */
export const allLanguages = Object.keys(numberWordLanguages);

/**
 * Lower case, compatibility forms folded (full-width digits), invisible format characters dropped (`0.2\u200b4`), `ß`
 * as `ss`, umlauts as `ae`/`oe`/`ue`, hyphens between
 * letters as spaces (`forty-three`), and any run of white space as one space.
 */
export const normaliseText = (text: string): string => fold(text).replace(spaceRuns, ' ');

/** `normaliseText` that keeps line breaks, one for one: to read a message line by line. */
export const normaliseLines = (text: string): string => fold(text).replace(spaceRunsInLine, ' ');

/**
 * The runs of white space that collapsing changes, the same result as replacing every run (`/\s+/g`) at a tenth of
 * the cost: a lone space (most of any text) is left alone instead of being replaced by itself.
 */
const spaceRuns = /\s{2,}|[^\S ]/g;
const spaceRunsInLine = /[^\S\n ][^\S\n]*| [^\S\n]+/g;

const fold = (text: string): string => {
  // Only text without a character above U+007F encodes to as many UTF-8 bytes as it has characters.
  const ascii = Buffer.byteLength(text, 'utf8') === text.length;
  const folded = ascii
    ? text.toLowerCase()
    : text
        .normalize('NFKC')
        // Invisible format characters (zero-width spaces, soft hyphens) hide nothing from a reader.
        .replace(/\p{Cf}/gu, '')
        .toLowerCase()
        .replace(/ß/g, 'ss')
        .replace(/ä/g, 'ae')
        .replace(/ö/g, 'oe')
        .replace(/ü/g, 'ue');
  return spacedHyphens(folded);
};

const isLetter = (code: number): boolean => code >= 0x61 && code <= 0x7a;

/**
 * Hyphens between letters as spaces (`/-(?<=[a-z]-)(?=[a-z])/g` to `' '`), hyphen by hyphen: most hyphens in mail
 * are rules (`-----Original Message-----`) or part of ids (`PO-2026-0012`), and most text keeps every one of them.
 */
const spacedHyphens = (text: string): string => {
  let spaced = '';
  let from = 0;
  for (let at = text.indexOf('-'); at >= 0; at = text.indexOf('-', at + 1)) {
    if (isLetter(text.charCodeAt(at - 1)) && isLetter(text.charCodeAt(at + 1))) {
      spaced += `${text.slice(from, at)} `;
      from = at + 1;
    }
  }
  return from === 0 ? text : spaced + text.slice(from);
};

const grouped = (whole: string, separator: string): string => whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);

/** Figures as written with digits: grouped, with a decimal point or comma, trailing zeros kept or dropped. */
const digitForms = (value: number): Set<string> => {
  const forms = new Set<string>();
  // To the fact's own precision or finer: 0.238 is not 0.24 (a rounded figure is another offer, not the fact).
  const own = (String(Math.abs(value)).split('.')[1] ?? '').length;
  const decimalsList = Number.isInteger(value)
    ? [0, 2]
    : [2, 3, 4].filter((d) => d >= own).concat(own > 4 ? [own] : []);
  for (const decimals of decimalsList) {
    const fixed = Math.abs(value).toFixed(decimals);
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
    if (fraction) {
      // Trailing zeros dropped: 0.2160 is also 0.216, 5.50 also 5.5.
      const trimmed = fraction.replace(/0+$/, '');
      for (const point of ['.', ',']) {
        forms.add(trimmed ? `${whole}${point}${trimmed}` : whole);
        // No leading zero: .216
        if (whole === '0' && trimmed) {
          forms.add(`${point}${trimmed}`);
        }
      }
    }
  }
  return forms;
};

const centsOf = (value: number): number | undefined => {
  const cents = Math.round(value * 100);
  return Math.abs(value * 100 - cents) < 1e-6 ? cents : undefined;
};

/** Number words in one language: whole numbers from 100, decimals digit by digit, money as units and cents. */
const wordForms = (value: number, language: NumberWordLanguage): string[] => {
  const forms: string[] = [];
  const abs = Math.abs(value);
  const whole = Math.floor(abs);
  if (Number.isInteger(abs)) {
    if (abs >= 100) {
      forms.push(...wholeInWords(abs, language));
    }
    for (const unit of language.currency.unit) {
      forms.push(...wholeInWords(abs, language).map((w) => `${w} ${unit}`));
    }
    return forms;
  }
  const digits = String(+abs.toFixed(4))
    .split('.')[1]
    .split('')
    .map((d) => language.ones[Number(d)]);
  // The whole part in words or in digits (`46 point one seven`): a reader recovers the figure either way.
  for (const w of [...wholeInWords(whole, language), String(whole)]) {
    forms.push(`${w} ${language.point} ${digits.join(' ')}`);
  }
  const cents = centsOf(abs % 1);
  if (cents !== undefined) {
    for (const w of wholeInWords(whole, language)) {
      for (const c of wholeInWords(cents, language)) {
        for (const unit of language.currency.unit) {
          forms.push(`${w} ${unit} ${c}`);
          for (const cent of language.currency.cent) {
            forms.push(`${w} ${unit} ${language.currency.and} ${c} ${cent}`);
          }
        }
        if (whole === 0) {
          forms.push(...language.currency.cent.map((cent) => `${c} ${cent}`));
        }
      }
    }
  }
  return forms;
};

/** Written with digits and enough of them to mean this figure alone; shorter figures count only as money. */
const distinctive = (form: string): boolean => form.replace(/\D/g, '').length >= 3 || /[a-z]{4,}/.test(form);

/**
 * Every written form of `value` worth searching for on its own, normalised (money-only forms of short figures are
 * matched by `mentionsIn` with a currency or `per unit` beside them).
 */
export const numberForms = (value: number, languages: readonly string[] = allLanguages): string[] => {
  const forms = digitForms(value);
  if (Math.abs(value) < 1) {
    const cents = +(Math.abs(value) * 100).toFixed(2);
    for (const unit of ['cents', 'cent', 'ct']) {
      forms.add(`${cents} ${unit}`);
      forms.add(`${String(cents).replace('.', ',')} ${unit}`);
    }
  }
  if (Math.abs(value) >= 1000) {
    forms.add(`${+(Math.abs(value) / 1000).toFixed(1)}k`);
    forms.add(`${+(Math.abs(value) / 1000).toFixed(2)}k`);
  }
  for (const code of languages) {
    const language = numberWordLanguages[code];
    if (language) {
      wordForms(value, language).forEach((f) => forms.add(normaliseText(f)));
    }
  }
  return [...forms].filter(distinctive);
};

/** Short figures as money: `5.5 eur`, `€6`, `0.24 per unit`. */
const currencyBefore = ['€', 'eur', 'euro', '\\$', 'usd', '£', 'gbp', 'chf'];
const currencyAfter = [
  '€',
  'eur\\b',
  'euros?\\b',
  'usd\\b',
  'dollars?\\b',
  'gbp\\b',
  'chf\\b',
  'per unit\\b',
  'a unit\\b',
  'each\\b',
  'per piece\\b',
  'per pc\\b',
  '/ ?unit\\b',
  '/ ?pc\\b',
  'pro stueck\\b',
  'je stueck\\b',
  '/ ?stk\\b',
];

/**
 * Whether normalised text holds any number words at all (every word form of a figure has one of these in it): text
 * without them is searched for figures alone.
 */
export const hasNumberWords = (() => {
  const words = Object.values(numberWordLanguages).flatMap((l) => [
    l.hundred,
    l.thousand,
    l.million.one.split(' ').pop() as string,
    l.million.many,
    l.point,
    ...l.currency.unit,
    ...l.currency.cent,
  ]);
  const pattern = new RegExp([...new Set(words)].sort((a, b) => b.length - a.length).join('|'));
  return (normalised: string): boolean => pattern.test(normalised);
})();

/**
 * The values a figure's digit forms read as, rounded to 4 decimals: the value, its cents and its thousands (`12.5k`).
 * A text whose figures hold none of these, and no number words, cannot state the value.
 */
export const readingsOf = (value: number): number[] => {
  const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
  return [
    round4(value),
    round4(value * 100),
    round4(value / 1000),
    Math.round(value / 100) / 10,
    Math.round(value / 10) / 100,
  ];
};

const escape = (form: string): string => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const compiled = new Map<readonly string[], Map<number, RegExp>>();

/**
 * One regex for every form of a value, compiled once per value: words need word boundaries, figures need no digit
 * (or digit and separator) on either side. Longer forms first, so `12.500,00` is read whole.
 */
const matcherOf = (value: number, languages: readonly string[]): RegExp => {
  let byValue = compiled.get(languages);
  if (!byValue) {
    byValue = new Map();
    compiled.set(languages, byValue);
  }
  let matcher = byValue.get(value);
  if (!matcher) {
    const forms = numberForms(value, languages).sort((a, b) => b.length - a.length);
    const words = forms.filter((f) => /^[a-z]/.test(f)).map(escape);
    const figures = forms.filter((f) => !/^[a-z]/.test(f)).map(escape);
    const short = [...digitForms(value)]
      .filter((f) => !distinctive(f) && /\d/.test(f))
      .sort((a, b) => b.length - a.length)
      .map(escape);
    // Not part of a longer number, nor of an identifier or a date (`PO-2026-12500`, `2026-05-05`, `12/05`).
    const before = '(?<![\\d#_])(?<!\\d[.,])(?<![a-z\\d][-/])(?<![a-z])';
    const after = '(?!\\d)(?![.,]\\d)(?![-/][a-z\\d])';
    // Beside a currency, only another digit makes it a different number.
    const digitBefore = '(?<!\\d)(?<!\\d[.,])';
    const digitAfter = '(?!\\d)(?![.,]\\d)';
    const alternatives = [
      ...(words.length ? [`\\b(?:${words.join('|')})\\b`] : []),
      ...(figures.length ? [`${before}(?:${figures.join('|')})${after}`] : []),
      ...(short.length
        ? [
            `(?:${currencyBefore.join('|')}) ?${digitBefore}(?:${short.join('|')})${digitAfter}`,
            `${before}(?:${short.join('|')})${digitAfter} ?(?:${currencyAfter.join('|')})`,
          ]
        : []),
    ];
    matcher = new RegExp(alternatives.join('|'));
    if (byValue.size > 10_000) {
      byValue.clear();
    }
    byValue.set(value, matcher);
  }
  return matcher;
};

/**
 * Whether `text` states `value` in any of its forms, as a number on its own (`12,500` must not match `112,500`):
 * the form found, as written.
 */
export const mentions = (text: string, value: number, languages?: readonly string[]): string | undefined =>
  mentionsIn(normaliseText(text), value, languages);

/** `mentions` for text already normalised (a grader reads each message once, for every fact). */
export const mentionsIn = (
  normalised: string,
  value: number,
  languages: readonly string[] = allLanguages,
): string | undefined => matcherOf(value, languages).exec(normalised)?.[0];
