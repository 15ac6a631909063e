import { ASTNode, Environment } from '@marcbachmann/cel-js';

/**
 * Success and milestone predicates: CEL expressions (https://cel.dev) over the task's values, the twins' records and
 * the event log, with business-time functions. The language is documented in PREDICATES.md next to this file. The
 * same environment checks a predicate at ingest (against the stack's tables and fields) and evaluates it at the end of
 * an episode (against what the twins recorded).
 */

/** A CEL type of a value the predicate reads: what its declaration in the environment says. */
export type PredicateValueType = 'double' | 'string' | 'bool' | 'money' | 'timestamp' | 'dyn';

/** The shape of what a predicate sees: its values' types, and for each service the fields of each table. */
export interface PredicateShape {
  values: Record<string, PredicateValueType>;
  /**
   * Service → table → the fields of its records (`null`: fields unknown, any may be read). Names are as the stack
   * spells them; predicates use them with every character outside `[A-Za-z0-9_]` as `_` (`purchase-orders` →
   * `purchase_orders`). A service given as `null` has tables unknown: any may be read.
   */
  tables: Record<string, Record<string, readonly string[] | null> | null>;
}

/** Office-hours arithmetic the business-time functions use: workflow-contracts' calendar, passed in by its user. */
export interface BusinessCalendar {
  businessDaysBetween(fromMs: number, toMs: number): number;
  endOfBusinessDays(fromMs: number, days: number): number;
  addBusinessDays(fromMs: number, days: number): number;
}

/** Names the context gives every predicate; a scenario value may not take one. */
export const predicateContextNames = ['services', 'events', 'agent', 'start', 'now'] as const;

/** A predicate's name for a service or table (`purchase-orders` → `purchase_orders`). */
export const predicateName = (name: string): string => {
  const safe = name.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(safe) ? safe : `_${safe}`;
};

const timestamp = 'google.protobuf.Timestamp';

/** A moment from a timestamp or an ISO 8601 string (`2026-03-02`, `2026-03-02T10:00:00Z`). */
const msOf = (value: Date | string): number => {
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  if (!Number.isFinite(ms)) {
    throw new Error(`"${String(value)}" is not a date or time`);
  }
  return ms;
};

const noCalendar: BusinessCalendar = {
  businessDaysBetween: () => {
    throw new Error('no business calendar: this environment only checks predicates');
  },
  endOfBusinessDays: () => {
    throw new Error('no business calendar: this environment only checks predicates');
  },
  addBusinessDays: () => {
    throw new Error('no business calendar: this environment only checks predicates');
  },
};

const registerFunctions = (env: Environment, calendar: BusinessCalendar): void => {
  const moments = [timestamp, 'string'];
  const counts = ['double', 'int'];
  for (const a of moments) {
    for (const b of moments) {
      env.registerFunction(`business_days_between(${a}, ${b}): double`, (from: Date | string, to: Date | string) =>
        calendar.businessDaysBetween(msOf(from), msOf(to)),
      );
      for (const n of counts) {
        // Met by anything up to the close of the N-th business day after the start, as "reply within 2 days" means.
        env.registerFunction(
          `within_business_days(${a}, ${b}, ${n}): bool`,
          (at: Date | string, start: Date | string, days: number | bigint) =>
            msOf(at) >= msOf(start) && msOf(at) <= calendar.endOfBusinessDays(msOf(start), Number(days)),
        );
      }
    }
    for (const n of counts) {
      env.registerFunction(
        `add_business_days(${a}, ${n}): ${timestamp}`,
        (at: Date | string, days: number | bigint) => new Date(calendar.addBusinessDays(msOf(at), Number(days))),
      );
    }
  }
  // CEL keeps integers and doubles apart; scenario numbers are doubles, so `quantity * 2` must work as written.
  for (const op of ['+', '-', '*', '/'] as const) {
    const apply = (x: number, y: number) => (op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y);
    env.registerOperator(`double ${op} int`, (x: number, y: bigint) => apply(x, Number(y)));
    env.registerOperator(`int ${op} double`, (x: bigint, y: number) => apply(Number(x), y));
  }
  env.registerOperator('double == int', (x: number, y: bigint) => x === Number(y));
};

/** An event of the log as predicates read it: a type of its own, so a misspelt field is refused at ingest. */
export class PredicateEvent {
  constructor(
    readonly seq: number,
    readonly at: Date,
    readonly service: string,
    readonly type: string,
    readonly actor: string | null,
    readonly table: string | null,
    readonly record_id: string | null,
    readonly data: unknown,
  ) {}
}

/**
 * The CEL environment for one shape. At ingest it is built from the scenario and the stack model and only checks;
 * at the end of an episode it is built from the instance and the records read, with the business calendar.
 */
export const predicateEnvironment = (shape: PredicateShape, calendar: BusinessCalendar = noCalendar): Environment => {
  const env = new Environment({ homogeneousAggregateLiterals: false })
    .registerType('money', { fields: { amount: 'double', currency: 'string' } })
    .registerType('agent', { fields: { id: 'string', email: 'string', slack_user: 'string' } })
    .registerType('event', {
      ctor: PredicateEvent,
      fields: {
        seq: 'double',
        at: timestamp,
        service: 'string',
        type: 'string',
        actor: 'dyn',
        table: 'dyn',
        record_id: 'dyn',
        data: 'dyn',
      },
    });
  const services: Record<string, Record<string, string> | string> = {};
  let types = 0;
  for (const [service, tables] of Object.entries(shape.tables)) {
    if (tables === null) {
      services[predicateName(service)] = 'map';
      continue;
    }
    const declared: Record<string, string> = {};
    for (const [table, fields] of Object.entries(tables)) {
      if (fields === null) {
        declared[predicateName(table)] = 'list<map>';
        continue;
      }
      const type = `record_${++types}`;
      env.registerType(type, { fields: Object.fromEntries(fields.map((f) => [f, 'dyn'])) });
      declared[predicateName(table)] = `list<${type}>`;
    }
    services[predicateName(service)] = declared;
  }
  env
    .registerVariable({ name: 'services', schema: services })
    .registerVariable('events', 'list<event>')
    .registerVariable('agent', 'agent')
    .registerVariable('start', timestamp)
    .registerVariable('now', timestamp);
  for (const [name, type] of Object.entries(shape.values)) {
    env.registerVariable(name, type === 'timestamp' ? timestamp : type);
  }
  registerFunctions(env, calendar);
  return env;
};

export interface PredicateProblem {
  /** Where in the expression (0-based offsets), when the checker knows. */
  range?: { start: number; end: number };
  message: string;
}

/** The first line of a CEL error (the rest is a caret drawing), with its column. */
const problemOf = (error: Error & { range?: { start: number; end: number } }): PredicateProblem => ({
  ...(error.range ? { range: { start: error.range.start, end: error.range.end } } : {}),
  message: error.message.split('\n')[0],
});

/**
 * Checks a predicate against its environment: it must parse, name only services, tables, fields, values and
 * functions that exist, and give a boolean. Returns the problem, or undefined when it is sound.
 */
export const checkPredicate = (env: Environment, expression: string): PredicateProblem | undefined => {
  const result = env.check(expression);
  if (!result.valid) {
    return result.error ? problemOf(result.error) : { message: 'the predicate does not check' };
  }
  if (result.type !== 'bool' && result.type !== 'dyn') {
    return { message: `a predicate must be true or false, and this one gives a ${result.type}` };
  }
  const dynamic = dynamicTableAccess(env.parse(expression).ast);
  return dynamic
    ? {
        range: { start: dynamic.start, end: dynamic.end },
        message: 'name tables as services.<service>.<table>: only tables named so are read at the end',
      }
    : undefined;
};

const isServices = (node: ASTNode): boolean =>
  (node.op === 'id' && node.args === 'services') ||
  ((node.op === '.' || node.op === '.?') && isServices(node.args[0]) && node.args[0].op === 'id');

/** An index into `services` or one of its services (`services["erp"]`): a table no walk of the predicate can name. */
const dynamicTableAccess = (node: ASTNode): { start: number; end: number } | undefined => {
  if ((node.op === '[]' || node.op === '[?]') && isServices(node.args[0])) {
    const index = node.args[1];
    return { start: index.start, end: index.end };
  }
  const children = (value: unknown): ASTNode[] =>
    value && typeof value === 'object' && 'op' in value
      ? [value as ASTNode]
      : Array.isArray(value)
        ? value.flatMap(children)
        : [];
  for (const child of children(node.args)) {
    const found = dynamicTableAccess(child);
    if (found) {
      return found;
    }
  }
  return undefined;
};

/** The message of a problem with its column: `column 12: No such key: quantiti`. */
export const describePredicateProblem = (problem: PredicateProblem): string =>
  problem.range ? `column ${problem.range.start + 1}: ${problem.message}` : problem.message;

/** Walks a parsed predicate: the `services.<service>.<table>` it reads and every field name it selects. */
const walk = (node: ASTNode, found: { tables: Set<string>; fields: Set<string> }): void => {
  if (node.op === '.' || node.op === '.?') {
    const [target, field] = node.args;
    found.fields.add(field);
    if ((target.op === '.' || target.op === '.?') && target.args[0].op === 'id') {
      const [root, service] = target.args;
      if (root.args === 'services') {
        found.tables.add(`${service}.${field}`);
      }
    }
  }
  const args = node.args as unknown;
  const visit = (value: unknown): void => {
    if (value && typeof value === 'object' && 'op' in value) {
      walk(value as ASTNode, found);
    } else if (Array.isArray(value)) {
      value.forEach(visit);
    }
  };
  visit(args);
};

/**
 * What a predicate reads: the tables (as `service.table` in predicate names) whose records must be fetched, and the
 * field names it selects (absent fields are read as null, so a record without an optional field does not break it).
 */
export const predicateReads = (env: Environment, expression: string): { tables: string[]; fields: string[] } => {
  const found = { tables: new Set<string>(), fields: new Set<string>() };
  walk(env.parse(expression).ast, found);
  return { tables: [...found.tables], fields: [...found.fields] };
};
