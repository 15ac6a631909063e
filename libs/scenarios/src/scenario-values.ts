import type { EvalFunction, SymbolNode } from 'mathjs';

import { hashSeed, seededRandom } from '@libs/synthetic-data';
import { VariableSpec } from '@libs/stack-model';

export type Value = string | number | boolean;
export type Values = Record<string, Value>;

export class ExpressionError extends Error {}

/** Functions expressions may call; everything else is a value name. */
const functions = new Set(['min', 'max', 'round', 'floor', 'ceil', 'abs']);

const compiled = new Map<string, EvalFunction>();

/** mathjs on first use: loading it takes longer than ingesting a small spec, and most bundles have no expression. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mathjs = (): typeof import('mathjs') => require('mathjs') as typeof import('mathjs');

/** The value names an expression reads (`quantity * list_price` → quantity, list_price); throws when it does not parse. */
export const namesIn = (expression: string): string[] => {
  try {
    return [
      ...new Set(
        mathjs()
          .parse(expression)
          .filter((node) => node instanceof mathjs().SymbolNode)
          .map((node) => (node as SymbolNode).name)
          .filter((n) => !functions.has(n)),
      ),
    ];
  } catch (error) {
    throw new ExpressionError(`cannot read "${expression}": ${(error as Error).message}`);
  }
};

/** Evaluates a number or an expression over the values (mathjs: arithmetic and min, max, round, floor, ceil, abs). */
export const evaluate = (expression: number | string, values: Values): number => {
  if (typeof expression === 'number') {
    return expression;
  }
  let code = compiled.get(expression);
  if (!code) {
    try {
      code = mathjs().compile(expression);
    } catch (error) {
      throw new ExpressionError(`cannot read "${expression}": ${(error as Error).message}`);
    }
    compiled.set(expression, code);
  }
  const result: unknown = code.evaluate({ ...values });
  if (typeof result !== 'number' || !Number.isFinite(result)) {
    throw new ExpressionError(`"${expression}" is not a finite number (${String(result)})`);
  }
  return result;
};

const template = /\{\{\s*([^}]+?)\s*\}\}/g;

/** The value names a text template reads (`Buy {{quantity}} bolts` → quantity). */
export const namesInTemplate = (text: string): string[] =>
  [...text.matchAll(template)].flatMap((match) => namesIn(match[1]));

const show = (value: Value | number): string =>
  typeof value === 'number' && !Number.isInteger(value) ? String(Math.round(value * 10_000) / 10_000) : String(value);

/** Fills a text template: a bare name gives its value as is, an expression its number. */
export const fill = (text: string, values: Values): string =>
  text.replace(template, (_, inner: string) => {
    const key = inner.trim();
    return key in values ? show(values[key]) : show(evaluate(key, values));
  });

/**
 * One value of a variable for a seed: the same seed always picks the same task instance. `variableSeed` draws it
 * under a key (see instance-key.ts); without one the draw follows from the seed alone, as checks of a scenario need.
 */
export const sample = (
  name: string,
  spec: VariableSpec,
  seed: number,
  variableSeed: (seed: number, name: string) => number = (s, n) => hashSeed(s, 'variable', n),
): Value => {
  if (typeof spec !== 'object') {
    return spec;
  }
  const random = seededRandom(variableSeed(seed, name));
  if ('choice' in spec) {
    return spec.choice[Math.floor(random() * spec.choice.length)];
  }
  if ('int' in spec) {
    const [low, high] = spec.int;
    const step = spec.step ?? 1;
    const steps = Math.floor((high - low) / step);
    return low + Math.floor(random() * (steps + 1)) * step;
  }
  const [low, high] = spec.number;
  const value = low + random() * (high - low);
  const decimals = spec.decimals ?? 4;
  return Math.round(value * 10 ** decimals) / 10 ** decimals;
};
