import { FieldProfile } from '@libs/stack-model';

import { redactionReason } from './sample-redaction';

/** Few distinct values, each seen several times: a category worth reproducing with its frequencies. */
const maxCategories = 20;

const isDate = (value: string): boolean =>
  /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value));

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
  const distinct = new Set(strings);
  if (distinct.size <= maxCategories && distinct.size <= Math.max(1, strings.length / 2)) {
    return categorical(strings);
  }
  const lengths = strings.map((s) => s.length);
  return { kind: 'text', minLength: Math.min(...lengths), maxLength: Math.max(...lengths) };
};

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
