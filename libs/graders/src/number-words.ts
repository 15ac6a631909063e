/**
 * Number words by language, as data: a language is added by adding an entry, not by changing the speller. Words are
 * written as `normaliseText` leaves them (lower case, `ß` → `ss`, umlauts as `ae`/`oe`/`ue`, hyphens as spaces).
 */
export interface NumberWordLanguage {
  /** 0–19. */
  ones: readonly string[];
  /** 20, 30, … 90 at their index (2–9). */
  tens: readonly string[];
  /** How 21 is said: `tens-first` (twenty one) or `units-first` with a joiner (einundzwanzig). */
  order: 'tens-first' | 'units-first';
  joiner?: string;
  /** One as a part of a compound (`ein` in einhundert); `ones[1]` when absent. */
  oneInCompound?: string;
  hundred: string;
  thousand: string;
  million: { one: string; many: string };
  /** Whether parts are written together (`zwoelftausendfuenfhundert`) rather than apart. */
  compound: boolean;
  point: string;
  currency: { unit: readonly string[]; cent: readonly string[]; and: string };
}

export const numberWordLanguages: Readonly<Record<string, NumberWordLanguage>> = {
  en: {
    ones: [
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
    ],
    tens: ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'],
    order: 'tens-first',
    hundred: 'hundred',
    thousand: 'thousand',
    million: { one: 'million', many: 'million' },
    compound: false,
    point: 'point',
    currency: { unit: ['euros', 'euro'], cent: ['cents', 'cent'], and: 'and' },
  },
  de: {
    ones: [
      'null',
      'eins',
      'zwei',
      'drei',
      'vier',
      'fuenf',
      'sechs',
      'sieben',
      'acht',
      'neun',
      'zehn',
      'elf',
      'zwoelf',
      'dreizehn',
      'vierzehn',
      'fuenfzehn',
      'sechzehn',
      'siebzehn',
      'achtzehn',
      'neunzehn',
    ],
    tens: ['', '', 'zwanzig', 'dreissig', 'vierzig', 'fuenfzig', 'sechzig', 'siebzig', 'achtzig', 'neunzig'],
    order: 'units-first',
    joiner: 'und',
    oneInCompound: 'ein',
    hundred: 'hundert',
    thousand: 'tausend',
    million: { one: 'eine million', many: 'millionen' },
    compound: true,
    point: 'komma',
    currency: { unit: ['euro'], cent: ['cent'], and: 'und' },
  },
};

const below100 = (n: number, language: NumberWordLanguage, inCompound: boolean): string => {
  const one = language.oneInCompound ?? language.ones[1];
  if (n < 20) {
    return n === 1 && inCompound ? one : language.ones[n];
  }
  const tens = language.tens[Math.floor(n / 10)];
  const units = n % 10;
  if (!units) {
    return tens;
  }
  return language.order === 'tens-first'
    ? `${tens} ${language.ones[units]}`
    : `${units === 1 ? one : language.ones[units]}${language.joiner ?? ''}${tens}`;
};

const below1000 = (n: number, language: NumberWordLanguage, inCompound: boolean, join: string): string => {
  const parts: string[] = [];
  const one = language.oneInCompound ?? language.ones[1];
  if (n >= 100) {
    const h = Math.floor(n / 100);
    parts.push(`${h === 1 ? one : language.ones[h]}${language.compound ? join : ' '}${language.hundred}`);
    n %= 100;
  }
  if (n > 0 || parts.length === 0) {
    parts.push(below100(n, language, inCompound || parts.length > 0));
  }
  return parts.join(join);
};

/**
 * A whole number below a billion in words: one form per way of writing it (compound languages also apart, and with
 * or without the leading `ein`).
 */
export const wholeInWords = (value: number, language: NumberWordLanguage): string[] => {
  const whole = Math.floor(Math.abs(value));
  if (whole === 0) {
    return [language.ones[0]];
  }
  const joins = language.compound ? ['', ' '] : [' '];
  return joins.flatMap((join) => {
    const parts: string[] = [];
    const millions = Math.floor(whole / 1_000_000);
    const thousands = Math.floor((whole % 1_000_000) / 1000);
    const rest = whole % 1000;
    if (millions) {
      parts.push(
        millions === 1
          ? language.million.one
          : `${below1000(millions, language, false, join)} ${language.million.many}`,
      );
    }
    if (thousands) {
      const count = below1000(thousands, language, true, join);
      parts.push(`${count}${language.compound ? join : ' '}${language.thousand}`);
    }
    if (rest) {
      parts.push(below1000(rest, language, false, join));
    }
    const written = parts.join(millions && language.compound ? ' ' : join);
    // `eintausend` is also said `tausend`.
    const bare = language.oneInCompound
      ? written.replace(new RegExp(`^${language.oneInCompound} ?(?=${language.hundred}|${language.thousand})`), '')
      : '';
    return bare && bare !== written ? [written, bare] : [written];
  });
};
