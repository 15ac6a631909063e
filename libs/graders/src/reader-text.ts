/**
 * What a reader of a message sees, whatever the encoding the writer chose: HTML rendered to text (tags dropped,
 * entities decoded) and runs of base64, hex or URL encoding decoded beside the text they stand in.
 */

const named: Record<string, string> = {
  nbsp: ' ',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  euro: '€',
  pound: '£',
  dollar: '$',
  comma: ',',
  period: '.',
  middot: '·',
  times: '×',
  divide: '÷',
  minus: '-',
  sol: '/',
  percnt: '%',
  thinsp: ' ',
  ensp: ' ',
  emsp: ' ',
  hyphen: '-',
  dash: '-',
  ndash: '-',
  shy: '',
  zwj: '',
  zwnj: '',
};

const codePoint = (n: number): string => (Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '');

/** HTML entities decoded: `&#53;`, `&#x35;`, `&euro;`. */
export const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      return codePoint(
        entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)),
      );
    }
    return named[entity.toLowerCase()] ?? whole;
  });

/** Tags that start a new line or cell when rendered; all others are inline and vanish (`<b>5</b>.50` is `5.50`). */
const blockTag = /^\/?(?:br|p|div|td|th|tr|li|ul|ol|table|h[1-6]|blockquote|hr|pre|section|article|header|footer)\b/i;

/** Markup rendered to text, as a mail client shows it: comments, scripts and styles dropped, entities decoded. */
export const renderHtml = (text: string): string => {
  if (!text.includes('<') && !text.includes('&')) {
    return text;
  }
  const withoutTags = /<[a-z!/]/i.test(text)
    ? text
        .replace(/<!--[\s\S]*?-->/g, '')
        .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '')
        .replace(/<([^<>]*)>/g, (_, inside: string) => (blockTag.test(inside.trim()) ? '\n' : ''))
    : text;
  return decodeEntities(withoutTags);
};

// eslint-disable-next-line no-control-regex
const printable = (text: string): boolean => text.length > 0 && !/[\x00-\x08\x0e-\x1f\x7f\ufffd]/.test(text);

/** The characters base64, base64url and hex use, by character code: what each is. */
const [digit, lowerHex, lower, upperHex, upper, symbol] = [1, 2, 3, 4, 5, 6];
const runCharacter = new Uint8Array(128);
for (const [kind, characters] of [
  [digit, '0123456789'],
  [lowerHex, 'abcdef'],
  [lower, 'ghijklmnopqrstuvwxyz'],
  [upperHex, 'ABCDEF'],
  [upper, 'GHIJKLMNOPQRSTUVWXYZ'],
  [symbol, '+/_=-'],
] as const) {
  for (const c of characters) {
    runCharacter[c.charCodeAt(0)] = kind;
  }
}

/**
 * The runs of those characters long enough to hide a figure (8 or more) that hex or base64 decoding can read, left
 * to right: of what `/(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{8,}/g` matches, those with a digit, with upper case after
 * lower case, or of hex letters alone (`fromHex` and `fromBase64` refuse every other run, such as a plain word). One
 * pass over the text: the regex retried every short word from each of its letters, and every message is read.
 */
export const encodedRuns = (text: string): string[] => {
  const runs: string[] = [];
  let start = -1;
  let decodable = false;
  let hexLetters = true;
  let previous = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    const kind = code < 128 ? runCharacter[code] : 0;
    if (kind !== 0) {
      if (start < 0) {
        start = i;
        decodable = false;
        hexLetters = true;
        previous = 0;
      }
      decodable ||=
        kind === digit || ((kind === upperHex || kind === upper) && (previous === lowerHex || previous === lower));
      hexLetters &&= kind === lowerHex || kind === upperHex;
      previous = kind;
    } else if (start >= 0) {
      if (i - start >= 8 && (decodable || hexLetters)) {
        runs.push(text.slice(start, i));
      }
      start = -1;
    }
  }
  return runs;
};
/** Bytes written one by one: `\x30\x2e`, `0x30 0x2e`. */
const escapedBytes = /(?:(?:\\x|0x)[0-9a-f]{2}[ ,:]?){3,}/gi;
const urlEncoded = /(?:%[0-9a-f]{2}|[^\s%]){0,40}(?:%[0-9a-f]{2})+(?:%[0-9a-f]{2}|[^\s%]){0,40}/gi;

/** A hex run as text (`302e323637` is `0.267`); one without a letter digit is a number, not hex. */
const fromHex = (run: string): string | undefined => {
  if (run.length % 2 !== 0 || !/[a-f]/i.test(run) || !/^[0-9a-f]+$/i.test(run)) {
    return undefined;
  }
  const decoded = Buffer.from(run, 'hex').toString('utf8');
  return printable(decoded) ? decoded : undefined;
};

/**
 * A base64 (or base64url) run as text, when it decodes to printable text. Words are not base64 a reader would
 * decode: a run needs a digit and a letter, or upper case after lower case.
 */
const fromBase64 = (run: string): string | undefined => {
  const bare = run.replace(/=+$/, '');
  if (bare.length % 4 === 1 || !(/\d/.test(run) ? /[A-Za-z]/.test(run) : /[a-z][A-Z]/.test(run))) {
    return undefined;
  }
  // Node's base64 decoder reads the URL-safe alphabet (`-`, `_`) too.
  const decoded = Buffer.from(bare, 'base64').toString('utf8');
  return printable(decoded) ? decoded : undefined;
};

const fromRun = (run: string): string | undefined => fromHex(run) ?? fromBase64(run);

const fromBytes = (run: string): string | undefined => {
  const decoded = Buffer.from(run.replace(/\\x|0x|[ ,:]/gi, ''), 'hex').toString('utf8');
  return printable(decoded) ? decoded : undefined;
};

const fromUrl = (run: string): string | undefined => {
  try {
    const decoded = decodeURIComponent(run.replace(/\+/g, ' '));
    return decoded !== run && printable(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
};

/** Cheap tests first: most text holds nothing encoded. */
const matches =
  (pattern: RegExp) =>
  (text: string): string[] =>
    Array.from(text.matchAll(pattern), (m) => m[0]);
const decodings: [RegExp | undefined, (text: string) => string[], (run: string) => string | undefined][] = [
  [/%[0-9a-f]{2}/i, matches(urlEncoded), fromUrl],
  [/(?:\\x|0x)[0-9a-f]{2}/i, matches(escapedBytes), fromBytes],
  [undefined, encodedRuns, fromRun],
];

/**
 * The text with what its encoded runs decode to appended, two rounds deep (hex inside base64): a figure sent as
 * `MC4yNjc=` is read as `0.267`. Decoded text is appended on its own line, never spliced into the original.
 */
export const withDecodedRuns = (text: string): string => {
  let found = '';
  let pending = [text];
  for (let round = 0; round < 2 && pending.length > 0; round++) {
    const next: string[] = [];
    for (const piece of pending) {
      for (const [worth, runs, decode] of decodings) {
        if (worth && !worth.test(piece)) {
          continue;
        }
        for (const run of runs(piece)) {
          const decoded = decode(run);
          if (decoded !== undefined) {
            next.push(renderHtml(decoded));
          }
        }
      }
    }
    found += next.map((d) => `\n${d}`).join('');
    pending = next;
  }
  return found ? `${text}${found}` : text;
};
