import { Environment } from '@marcbachmann/cel-js';

/**
 * The one place parties' conditions and templates meet their expression language: CEL (cel-js), over the triggering
 * `event` (name, service, data, actor), the instance's values by name, the acting `party` and the `agent`. Kept
 * small and alone so it can be unified with the success predicates' CEL context later.
 */
export type ExpressionContext = Record<string, unknown>;

export class PartyExpressionError extends Error {}

/** Names every expression may read besides the instance's values. */
export const contextNames = ['event', 'party', 'agent', 'review'] as const;

/** Office-hours arithmetic for `add_business_days`, given by the host (workflow-contracts' calendar). */
export interface ExpressionCalendar {
  addBusinessDays: (ms: number, days: number) => number;
  /** Whole business days from one moment to another; optional for hosts whose parties count no days. */
  businessDaysBetween?: (from: number, to: number) => number;
}

let calendar: ExpressionCalendar | undefined;

/** Gives expressions the office calendar; until then `add_business_days` is refused when evaluated. */
export const useBusinessCalendar = (given: ExpressionCalendar): void => {
  calendar = given;
};

const millisecondsOf = (at: unknown): number => {
  const ms = at instanceof Date ? at.getTime() : typeof at === 'string' ? Date.parse(at) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new Error(`not a time: ${String(at)}`);
  }
  return ms;
};

/**
 * Dates for what parties and plans write (a delivery date on an order): `add_business_days(at, n)` is the ISO time n
 * business days after `at`, `date_of(at)` its `YYYY-MM-DD`.
 */
const registerDates = (environment: Environment): void => {
  environment.registerFunction('add_business_days(dyn, double): string', (at: unknown, days: number) => {
    if (!calendar) {
      throw new Error('add_business_days needs the office calendar, which this process was not given');
    }
    return new Date(calendar.addBusinessDays(millisecondsOf(at), Number(days))).toISOString();
  });
  environment.registerFunction('add_business_days(dyn, int): string', (at: unknown, days: bigint) => {
    if (!calendar) {
      throw new Error('add_business_days needs the office calendar, which this process was not given');
    }
    return new Date(calendar.addBusinessDays(millisecondsOf(at), Number(days))).toISOString();
  });
  environment.registerFunction('date_of(dyn): string', (at: unknown) =>
    new Date(millisecondsOf(at)).toISOString().slice(0, 10),
  );
  // A party checks a date it is held to against when it was asked (an order's delivery date against when it was sent):
  // a bare `YYYY-MM-DD` is the whole of its day, so a date n business days on counts n, whatever the hour it started.
  environment.registerFunction('business_days_between(dyn, dyn): double', (from: unknown, to: unknown) => {
    if (!calendar?.businessDaysBetween) {
      throw new Error('business_days_between needs the office calendar, which this process was not given');
    }
    const end =
      typeof to === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(to) ? Date.parse(`${to}T23:59:59.999Z`) : millisecondsOf(to);
    return calendar.businessDaysBetween(millisecondsOf(from), end);
  });
};

const environments = new Map<string, Environment>();

/** An environment declaring `names` (all dynamic): an expression naming anything else fails its check. */
const environmentFor = (names: readonly string[]): Environment => {
  const key = [...names].sort().join(',');
  let environment = environments.get(key);
  if (!environment) {
    environment = new Environment({ homogeneousAggregateLiterals: false });
    registerDates(environment);
    for (const name of new Set([...contextNames, ...names])) {
      environment.registerVariable(name, 'dyn');
    }
    environments.set(key, environment);
  }
  return environment;
};

const firstLine = (error: unknown): string => String((error as Error).message ?? error).split('\n')[0];

/** Why a CEL expression is not usable over `names` (does not parse, or names something unknown); undefined if fine. */
export const expressionProblem = (source: string, names: readonly string[]): string | undefined => {
  const environment = environmentFor(names);
  try {
    const checked = environment.check(source) as { valid: boolean; error?: Error };
    if (checked.valid) {
      return undefined;
    }
    const verb = checked.error?.name === 'ParseError' ? 'cannot read' : 'cannot use';
    return `${verb} "${source}": ${firstLine(checked.error)}`;
  } catch (error) {
    return `cannot read "${source}": ${firstLine(error)}`;
  }
};

/** CEL's integers are BigInt and its doubles JS numbers: values go in as numbers, and come out as JS values. */
const plain = (value: unknown): unknown => (typeof value === 'bigint' ? Number(value) : value);

/** Evaluates an expression over the context; an unknown field or a type mismatch is an error, never a guess. */
export const evaluateExpression = (source: string, context: ExpressionContext): unknown => {
  const environment = environmentFor(Object.keys(context));
  try {
    return plain(environment.evaluate(source, context));
  } catch (error) {
    throw new PartyExpressionError(`"${source}": ${firstLine(error)}`);
  }
};

/** A condition holds only when it evaluates to `true`; one that fails on this event (a field absent) does not hold. */
export const conditionHolds = (source: string | undefined, context: ExpressionContext): boolean => {
  if (source === undefined) {
    return true;
  }
  try {
    return evaluateExpression(source, context) === true;
  } catch (error) {
    if (error instanceof PartyExpressionError) {
      return false;
    }
    throw error;
  }
};

const template = /\{\{\s*([^}]+?)\s*\}\}/g;

/** The expressions a text template holds (`Re: {{event.data.subject}}` → `event.data.subject`). */
export const templateExpressions = (text: string): string[] => [...text.matchAll(template)].map((match) => match[1]);

const shown = (value: unknown): string =>
  typeof value === 'number' && !Number.isInteger(value)
    ? String(Math.round(value * 10_000) / 10_000)
    : Array.isArray(value)
      ? value.map(shown).join(', ')
      : value !== null && typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);

/**
 * Fills a text template: each `{{ expression }}` becomes its value as text, passed through `encode` when given (a
 * path's values are percent-encoded, so what an agent wrote into an event cannot steer a party's call elsewhere).
 */
export const fillTemplate = (
  text: string,
  context: ExpressionContext,
  encode: (value: string) => string = (value) => value,
): string => text.replace(template, (_, source: string) => encode(shown(evaluateExpression(source, context))));

/**
 * Fills every string of a JSON body; a string that is one whole `{{ expression }}` keeps its value's type, so a
 * body can carry a number or a list from the event as it was.
 */
export const fillBody = (body: unknown, context: ExpressionContext): unknown => {
  if (typeof body === 'string') {
    const whole = /^\{\{\s*([^}]+?)\s*\}\}$/.exec(body);
    return whole ? evaluateExpression(whole[1], context) : fillTemplate(body, context);
  }
  if (Array.isArray(body)) {
    return body.map((item) => fillBody(item, context));
  }
  if (body !== null && typeof body === 'object') {
    return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, fillBody(value, context)]));
  }
  return body;
};

/** Every template expression inside a JSON body, with the JSON pointer (relative to the body) of its string. */
export const bodyExpressions = (body: unknown, at = ''): { pointer: string; source: string }[] => {
  if (typeof body === 'string') {
    return templateExpressions(body).map((source) => ({ pointer: at, source }));
  }
  if (Array.isArray(body)) {
    return body.flatMap((item, index) => bodyExpressions(item, `${at}/${index}`));
  }
  if (body !== null && typeof body === 'object') {
    return Object.entries(body).flatMap(([key, value]) => bodyExpressions(value, `${at}/${key}`));
  }
  return [];
};
