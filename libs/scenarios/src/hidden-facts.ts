import { hashSeed } from '@libs/synthetic-data';
import { HiddenFactSpec, PersonalDataClass } from '@libs/stack-model';

export { hiddenFactSchema, personalDataClasses, type HiddenFactSpec, type PersonalDataClass } from '@libs/stack-model';

/** A hidden fact of a task instance, with its class. */
export type HiddenFact =
  | { type: 'number'; value: number }
  | { type: 'money'; amount: number; currency: string }
  | { type: 'text' | PersonalDataClass; value: string; subject?: string }
  | { type: 'date'; value: string }
  | { type: 'enum'; value: string; options: string[] };

/** How a fact's value is written in the scenario: a number expression, or a text template. */
export const hiddenFactSource = (spec: HiddenFactSpec): { expression?: number | string; template?: string } => {
  if (typeof spec === 'number' || typeof spec === 'string') {
    return { expression: spec };
  }
  if ('number' in spec) {
    return { expression: spec.number };
  }
  if ('money' in spec) {
    return { expression: spec.money };
  }
  if ('enum' in spec) {
    return spec.value === undefined ? {} : { template: spec.value };
  }
  return { template: Object.entries(spec).find(([key]) => key !== 'subject')?.[1] };
};

/** The class of a fact as the scenario declares it. */
export const hiddenFactType = (spec: HiddenFactSpec): HiddenFact['type'] =>
  typeof spec === 'number' || typeof spec === 'string'
    ? 'number'
    : (Object.keys(spec).find((k) => k !== 'currency' && k !== 'value' && k !== 'subject') as
        HiddenFact['type'] | 'money');

/** Fewest letters and digits a text or personal fact may have. */
export const minimumTextFact = 4;
const searchableLength = (value: string): number => value.normalize('NFKD').replace(/[^\p{L}\p{N}]/gu, '').length;

const isoDate = /^\d{4}-\d{2}-\d{2}$/;

/**
 * One fact of an instance: its number computed, or its template filled; an enum without a value is picked by the
 * seed. Throws an Error with the reason when the value does not fit its class.
 */
export const resolveHiddenFact = (
  name: string,
  spec: HiddenFactSpec,
  seed: number,
  number: (expression: number | string) => number,
  fill: (template: string) => string,
): HiddenFact => {
  if (typeof spec === 'number' || typeof spec === 'string') {
    return { type: 'number', value: number(spec) };
  }
  if ('number' in spec) {
    return { type: 'number', value: number(spec.number) };
  }
  if ('money' in spec) {
    return { type: 'money', amount: number(spec.money), currency: spec.currency };
  }
  if ('enum' in spec) {
    const value =
      spec.value === undefined ? spec.enum[hashSeed(seed, 'hidden', name) % spec.enum.length] : fill(spec.value);
    if (!spec.enum.includes(value)) {
      throw new Error(`"${value}" is not one of ${spec.enum.join(', ')}`);
    }
    return { type: 'enum', value, options: spec.enum };
  }
  if ('date' in spec) {
    const value = fill(spec.date);
    if (!isoDate.test(value) || Number.isNaN(Date.parse(value))) {
      throw new Error(`"${value}" is not a date (YYYY-MM-DD)`);
    }
    return { type: 'date', value };
  }
  const [type, text] = Object.entries(spec).find(([key]) => key !== 'subject') as ['text' | PersonalDataClass, string];
  const value = fill(text).trim();
  if (!value) {
    throw new Error('the fact is empty');
  }
  // Matched as whole words: a fact this short is an ordinary word or a fragment of one, and no rule could tell it.
  if (searchableLength(value) < minimumTextFact) {
    throw new Error(
      `"${value}" is too short to tell from ordinary text (at least ${minimumTextFact} letters or digits)`,
    );
  }
  return { type, value, ...('subject' in spec && spec.subject ? { subject: spec.subject } : {}) };
};

/** A fact as templates and number expressions use it: a money fact is its amount, others their value. */
export const hiddenFactValue = (fact: HiddenFact): number | string =>
  fact.type === 'money' ? fact.amount : fact.value;
