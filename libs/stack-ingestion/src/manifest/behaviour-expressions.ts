import { Environment } from '@marcbachmann/cel-js';

import { behaviourExpressionNames } from '@libs/stack-model';

/**
 * The expressions of a service's `behaviours:` (side effects' fields, derived fields): CEL over the names in
 * `behaviourExpressionNames`. Checked at ingest, evaluated by the twin, both here so they agree on the language.
 */
let environment: Environment | undefined;

const celEnvironment = (): Environment => {
  if (!environment) {
    environment = new Environment({ homogeneousAggregateLiterals: false });
    for (const name of behaviourExpressionNames) {
      environment.registerVariable(name, 'dyn');
    }
  }
  return environment;
};

const firstLine = (error: unknown): string => String((error as Error).message ?? error).split('\n')[0];

/** Why an expression cannot be used (it does not parse, or names something unknown); undefined when it can. */
export const behaviourExpressionProblem = (source: string): string | undefined => {
  try {
    const checked = celEnvironment().check(source) as { valid: boolean; error?: Error };
    return checked.valid ? undefined : `cannot use "${source}": ${firstLine(checked.error)}`;
  } catch (error) {
    return `cannot read "${source}": ${firstLine(error)}`;
  }
};

export class BehaviourExpressionError extends Error {}

/** CEL's integers are BigInt: results come back as JS numbers. */
const plain = (value: unknown): unknown =>
  typeof value === 'bigint'
    ? Number(value)
    : Array.isArray(value)
      ? value.map(plain)
      : value instanceof Map
        ? Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v)]))
        : value;

/** Evaluates an expression; every name it may read is given (absent ones as null). */
export const evaluateBehaviourExpression = (source: string, context: Record<string, unknown>): unknown => {
  const full = Object.fromEntries(behaviourExpressionNames.map((name) => [name, context[name] ?? null]));
  try {
    return plain(celEnvironment().evaluate(source, full));
  } catch (error) {
    throw new BehaviourExpressionError(`"${source}": ${firstLine(error)}`);
  }
};
