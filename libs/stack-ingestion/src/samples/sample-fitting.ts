import { FieldProfile } from '@libs/stack-model';

import { redactionReason } from './sample-redaction';

/** Few distinct values, each seen several times: a category worth reproducing with its frequencies. */
const maxCategories = 20;

const isDate = (value: string): boolean =>
  /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value));

/**
 * Fields that name a person by their name (a contact's, an employee's, an owner's): a few people seen often would be a
 * category, and a category keeps its values. First, last and full names are redacted whole (`sample-redaction.ts`).
 */
const personNameField =
  /(^|_)((given|family|middle|maiden|contact|person|display|nick|employee|owner)_?name|forename)$/i;

/** Fits one field's values. Identifiers and free text keep only their length; categories keep their frequencies. */
export const fitField = (field: string, values: unknown[]): FieldProfile | undefined => {
  const present = values.filter((v) => v !== null && v !== undefined && v !== '');
  if (present.length === 0) {
    return undefined;
  }
  const reason = redactionReason(field, present);
  if (reason) {
    return { kind: 'redacted', reason };
  }
  if (present.every((v) => typeof v === 'number')) {
    const numbers = present;
    const distinct = new Set(numbers);
    if (
      distinct.size <= Math.min(maxCategories, numbers.length / 2) &&
      /(status|type|kind|level|tier|days|terms)/i.test(field)
    ) {
      return categorical(numbers);
    }
    return {
      kind: 'numeric',
      min: Math.min(...numbers),
      max: Math.max(...numbers),
      integer: numbers.every(Number.isInteger),
    };
  }
  if (present.every((v) => typeof v === 'boolean')) {
    return categorical(present);
  }
  const strings = present.map(String);
  if (strings.every(isDate)) {
    const times = strings.map((s) => Date.parse(s));
    return {
      kind: 'date',
      from: new Date(Math.min(...times)).toISOString(),
      to: new Date(Math.max(...times)).toISOString(),
    };
  }
  const lengths = strings.map((s) => s.length);
  // A person's name keeps its length only, never its value: what shapes a synthesized name, and nobody's. (A user name is a login, shaped as a code.)
  if (personNameField.test(field.replace(/([a-z])([A-Z])/g, '$1_$2'))) {
    return { kind: 'text', minLength: Math.min(...lengths), maxLength: Math.max(...lengths) };
  }
  const distinct = new Set(strings);
  if (distinct.size <= maxCategories && distinct.size <= Math.max(1, strings.length / 2)) {
    return categorical(strings);
  }
  // A name is not prose, nor a code: its words would be other names', its letters a name's shape.
  const isName = /(^|_)name$/i.test(field.replace(/([a-z])([A-Z])/g, '$1_$2'));
  const prose = isName ? undefined : proseOf(strings);
  const shapes = isName || prose ? undefined : shapesOf(strings);
  return {
    kind: 'text',
    minLength: Math.min(...lengths),
    maxLength: Math.max(...lengths),
    ...(prose ? { prose } : {}),
    ...(shapes ? { shapes } : {}),
  };
};

/** A word is kept only when this many records use it: one record's rare word (a name, a code) never leaves it. */
const minRecordsPerWord = 2;
const maxVocabulary = 300;

/**
 * The vocabulary of a field of prose: what synthesized subjects and descriptions are made of, so they read like the
 * client's. Letters only (no amounts, ids or dates); a capitalised word counts only where it starts a value or is
 * also seen in lower case, since a capital mid-sentence is a name's.
 */
const proseOf = (values: string[]): Extract<FieldProfile, { kind: 'text' }>['prose'] => {
  // Words are what whitespace separates, less punctuation; a token with digits or symbols (an id, an amount) is none.
  const tokenised = values.map((value) =>
    value
      .split(/\s+/)
      .map((token) => token.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, ''))
      .filter(Boolean),
  );
  const isWord = (token: string): boolean => /^\p{L}[\p{L}'’-]*$/u.test(token);
  const counts = tokenised.map((words) => words.length);
  // Two words on average is prose already (a subject "Printer jammed"); one is a code or a name.
  if (counts.reduce((sum, n) => sum + n, 0) / values.length < 2) {
    return undefined;
  }
  const common = new Set<string>();
  const words = new Tally();
  const starts = new Tally();
  const pairs = new Tally();
  tokenised.forEach((list, record) =>
    list.forEach((word, at) => {
      const key = word.toLowerCase();
      if (!isWord(word)) {
        return;
      }
      if (word === key || (at === 0 && word.slice(1) === key.slice(1))) {
        common.add(key);
      }
      words.add(key, record);
      if (at === 0) {
        starts.add(key, record);
      } else {
        pairs.add(`${list[at - 1].toLowerCase()} ${key}`, record);
      }
    }),
  );
  const vocabulary = new Set(words.shared((key) => common.has(key)).map(([key]) => key));
  if (vocabulary.size < 5) {
    return undefined;
  }
  const weighted = (entries: [string, number][]) => {
    const total = entries.reduce((sum, [, n]) => sum + n, 0);
    return entries.map(([value, n]) => ({ value, weight: Math.max(1e-6, Math.round((n / total) * 1e6) / 1e6) }));
  };
  return {
    words: weighted(words.shared((key) => vocabulary.has(key))),
    starts: weighted(starts.shared((key) => vocabulary.has(key))),
    pairs: weighted(pairs.shared((pair) => pair.split(' ').every((w) => vocabulary.has(w)))).map(
      ({ value, weight }) => {
        const [from, to] = value.split(' ');
        return { from, to, weight };
      },
    ),
    minWords: Math.min(...counts),
    maxWords: Math.max(...counts),
  };
};

const maxMasks = 20;

/**
 * The format of single-token values (codes, references): character classes only, so `PO-1042` keeps `AA-9999` and
 * the prefix all values share when it reads as a convention (`PO-`: a few letters and a separator), never a value.
 */
const shapesOf = (values: string[]): NonNullable<Extract<FieldProfile, { kind: 'text' }>['shapes']> | undefined => {
  if (values.some((value) => /\s/.test(value) || value.length > 64) || new Set(values).size < 3) {
    return undefined;
  }
  const masks = new Tally();
  values.forEach((value, record) =>
    masks.add(
      value
        .replace(/\p{Lu}/gu, 'A')
        .replace(/\p{Ll}/gu, 'a')
        .replace(/\p{N}/gu, '9'),
      record,
    ),
  );
  const kept = [...masks.counts()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, maxMasks);
  const total = kept.reduce((sum, [, n]) => sum + n, 0);
  let prefix = values.reduce((common, value) => {
    let n = 0;
    while (n < common.length && common[n] === value[n]) {
      n++;
    }
    return common.slice(0, n);
  });
  prefix = /^[A-Za-z]{1,5}[-_#/:.]$/.exec(/^[A-Za-z]{1,5}[-_#/:.]/.exec(prefix)?.[0] ?? '')?.[0] ?? '';
  return { masks: kept.map(([value, n]) => ({ value, weight: n / total })), prefix };
};

/** Uses of each key and the records they are in; `shared` keeps keys that several records use, most used first. */
class Tally {
  private readonly uses = new Map<string, number>();
  private readonly records = new Map<string, Set<number>>();

  add(key: string, record: number): void {
    this.uses.set(key, (this.uses.get(key) ?? 0) + 1);
    this.records.set(key, (this.records.get(key) ?? new Set()).add(record));
  }

  counts(): [string, number][] {
    return [...this.uses.entries()];
  }

  shared(keep: (key: string) => boolean): [string, number][] {
    return [...this.uses.entries()]
      .filter(([key]) => keep(key) && (this.records.get(key)?.size ?? 0) >= minRecordsPerWord)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, maxVocabulary);
  }
}

const categorical = (values: (string | number | boolean)[]): FieldProfile => {
  const counts = new Map<string | number | boolean, number>();
  values.forEach((value) => counts.set(value, (counts.get(value) ?? 0) + 1));
  return {
    kind: 'categorical',
    values: [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])))
      .map(([value, count]) => ({ value, weight: count / values.length })),
  };
};

/** Fits every top-level field of a set of records. */
export const fitRecords = (records: Record<string, unknown>[]): Record<string, FieldProfile> => {
  const fields = new Set(records.flatMap((record) => Object.keys(record)));
  const profile: Record<string, FieldProfile> = {};
  for (const field of [...fields].sort()) {
    const values = records
      .map((record) => record[field])
      .filter((value) => typeof value !== 'object' || value === null);
    const fitted = fitField(field, values);
    if (fitted) {
      profile[field] = fitted;
    }
  }
  return profile;
};
