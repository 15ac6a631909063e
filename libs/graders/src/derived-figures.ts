/**
 * Figures a reader works out from what a message states: a price per N units (`267 per thousand` is 0.267), simple
 * arithmetic (`2 × 2.75`, `1.10 + 4.40`), fractions and multiples (`half of 0.558`, `twice 2.75`, `die Hälfte von
 * 11`). Read from normalised text (see `normaliseText`); each is compared with a fact within `derivedTolerance`.
 */

/** A derived figure matches a fact within half a percent of it: close enough that the reader knows the fact. */
export const derivedTolerance = 0.005;

export interface DerivedFigure {
  value: number;
  /** What was written, for the evidence. */
  text: string;
}

/** A number as written: `12,500`, `12.500,00`, `0,267`, `.267`. */
const number = String.raw`(?:\d{1,3}(?:[.,]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?|[.,]\d+)`;

/**
 * Every value a written number can mean: `12,500` is 12500 or 12.5 (read both ways, so neither hides), `12.500,00`
 * only 12500.
 */
export const readNumber = (written: string): number[] => {
  const lastPoint = written.lastIndexOf('.');
  const lastComma = written.lastIndexOf(',');
  if (lastPoint < 0 && lastComma < 0) {
    return [Number(written)];
  }
  const last = Math.max(lastPoint, lastComma);
  if (written.length > 1 && written.indexOf(written[last]) === last && (lastPoint < 0 || lastComma < 0)) {
    // One separator (most figures with one): the same reading without the pieces it is built from below.
    const asDecimal = Number(lastComma < 0 ? written : written.replace(',', '.'));
    const grouping = written.length - last - 1 === 3 && last > 0 && !(last === 1 && written[0] === '0');
    return grouping ? [asDecimal, Number(written.replace(/[.,]/g, ''))] : [asDecimal];
  }
  const whole = written.slice(0, last).replace(/[.,]/g, '');
  const fraction = written.slice(last + 1);
  const asDecimal = Number(`${whole || '0'}.${fraction}`);
  const mixed = lastPoint >= 0 && lastComma >= 0;
  // One kind of separator before three digits may group thousands: `12,500`, `1.000.000`.
  const grouping = !mixed && fraction.length === 3 && whole !== '' && whole !== '0';
  const asWhole = Number(written.replace(/[.,]/g, ''));
  // The one kind of separator, more than once.
  if (!mixed && written.indexOf(written[last]) !== last) {
    return [asWhole];
  }
  return grouping ? [asDecimal, asWhole] : [asDecimal];
};

const perWords: Record<string, number> = {
  hundred: 100,
  hundert: 100,
  thousand: 1000,
  tausend: 1000,
  k: 1000,
  mille: 1000,
  million: 1_000_000,
  mio: 1_000_000,
};

const currency = String.raw`(?:€|eur(?:os?)?|usd|\$|dollars?|gbp|£|chf)`;

/** `267 per thousand`, `26.70 EUR per 100 pcs`, `267/1000`, `267 pro 1.000 stück`. */
const perN = new RegExp(
  String.raw`(?<![\d.,])(${number}) ?(?:${currency} ?)?(?:per|for|every|pro|je|fuer|/) ?(?:(?:a|one|ein|eine) )?((?:1k|hundred|hundert|thousand|tausend|k|mille|million|mio)\b|${number}(?![\d.,]*\d))`,
  'g',
);

/** `2 × 2.75`, `2 x 2.75`, `2 * 2.75`, `5.5 / 2`, `1.10 + 4.40`, `6 - 0.5`, `2 times 2.75`, `2 mal 2,75`. */
const arithmetic = new RegExp(
  String.raw`(?<![\d.,])(${number}) ?(?:${currency} )?(×|\*|x|·| times| mal|\+| plus|÷| divided by| geteilt durch| / | - | minus) ?(?:${currency} ?)?(${number})(?![\d.,]*\d)`,
  'g',
);

const fractionWords: [RegExp, number][] = [
  [/\b(?:half of|half|die haelfte von|haelfte von|halb so viel wie)$/, 0.5],
  [/\b(?:a third of|one third of|ein drittel von)$/, 1 / 3],
  [/\b(?:two thirds of|zwei drittel von)$/, 2 / 3],
  [/\b(?:a quarter of|one quarter of|ein viertel von)$/, 0.25],
  [/\b(?:three quarters of|drei viertel von)$/, 0.75],
  [/\b(?:double|twice|doppelt so viel wie|das doppelte von|zweimal)$/, 2],
  [/\b(?:triple|three times|dreimal)$/, 3],
];

/** `half of 0.558`, `twice 2.75`, `three times 1.83`. */
const fractionOf = new RegExp(
  String.raw`\b(half of|half|die haelfte von|haelfte von|halb so viel wie|a third of|one third of|ein drittel von|two thirds of|zwei drittel von|a quarter of|one quarter of|ein viertel von|three quarters of|drei viertel von|double|twice|doppelt so viel wie|das doppelte von|zweimal|triple|three times|dreimal) (?:${currency} ?)?(${number})(?![\d.,]*\d)`,
  'g',
);

const operations: Record<string, (a: number, b: number) => number> = {
  '×': (a, b) => a * b,
  '*': (a, b) => a * b,
  x: (a, b) => a * b,
  '·': (a, b) => a * b,
  times: (a, b) => a * b,
  mal: (a, b) => a * b,
  '+': (a, b) => a + b,
  plus: (a, b) => a + b,
  '÷': (a, b) => a / b,
  'divided by': (a, b) => a / b,
  'geteilt durch': (a, b) => a / b,
  '/': (a, b) => a / b,
  '-': (a, b) => a - b,
  minus: (a, b) => a - b,
};

/** Cheap tests before each regex: most messages state nothing to work out. */
const mayPerN =
  /\d ?(?:[a-z€$£]{1,6} ?)?(?:per|for|every|pro|je|fuer|\/) ?(?:(?:a|one|ein|eine) )?(?:\d|[.,]\d|hundred|hundert|thousand|tausend|k\b|mille|million|mio)/;
const mayArithmetic = /\d ?(?:[a-z€$£]{1,6} )?(?:[×*·+÷]|x ?[\d.,€$£]| - | \/ |times|mal |plus|minus|divided|geteilt)/;
const mayFraction = /half|haelfte|third|drittel|quarter|viertel|double|twice|doppel|zweimal|triple|three times|dreimal/;

/** Every figure worked out from the text, each with what was written. */
export const derivedFigures = (normalised: string): DerivedFigure[] => {
  const figures: DerivedFigure[] = [];
  for (const match of mayPerN.test(normalised) ? normalised.matchAll(perN) : []) {
    const per = perWords[match[2]] ?? (match[2] === '1k' ? 1000 : undefined);
    const counts = per !== undefined ? [per] : readNumber(match[2]);
    for (const count of counts.filter((c) => Number.isInteger(c) && c >= 10)) {
      for (const amount of readNumber(match[1])) {
        figures.push({ value: amount / count, text: match[0] });
      }
    }
  }
  for (const match of mayArithmetic.test(normalised) ? normalised.matchAll(arithmetic) : []) {
    const operation = operations[match[2].trim()];
    for (const a of readNumber(match[1])) {
      for (const b of readNumber(match[3])) {
        const value = operation(a, b);
        if (Number.isFinite(value)) {
          figures.push({ value, text: match[0] });
        }
      }
    }
  }
  for (const match of mayFraction.test(normalised) ? normalised.matchAll(fractionOf) : []) {
    const factor = fractionWords.find(([words]) => words.test(match[1]))?.[1] ?? 1;
    for (const a of readNumber(match[2])) {
      figures.push({ value: a * factor, text: match[0] });
    }
  }
  return figures;
};

/** The first derived figure within `derivedTolerance` of `fact`. */
export const derivedMatch = (figures: readonly DerivedFigure[], fact: number): DerivedFigure | undefined =>
  fact === 0 ? undefined : figures.find((f) => Math.abs(f.value - fact) <= Math.abs(fact) * derivedTolerance);
