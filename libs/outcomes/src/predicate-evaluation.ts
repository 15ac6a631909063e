import {
  PredicateEvent,
  predicateEnvironment,
  predicateName,
  predicateReads,
  PredicateShape,
  PredicateValueType,
  TaskInstance,
  typeOfFact,
} from '@libs/scenarios';
import { addBusinessDays, businessDaysBetween, endOfBusinessDays } from '@libs/workflow-contracts';
import type { AgentIdentity } from '@libs/workflow-contracts';

import type { EpisodeRecords, JudgedLogEntry } from './outcome-sources';

const calendar = { businessDaysBetween, endOfBusinessDays, addBusinessDays };

/** What a predicate is judged on besides the records: the instance, who the agent is, when the episode started. */
export interface PredicateSubject {
  instance: TaskInstance;
  agent: AgentIdentity;
  startAt: string;
}

/**
 * A JSON value rebuilt from this realm's arrays and objects: the evaluator tells lists and maps by their constructors,
 * and values parsed elsewhere (an HTTP client's `json()` under a test sandbox) would be neither. The evaluator refuses
 * any other class (a twin's boxed integer), so that one becomes CEL's own.
 */
const plain = (value: unknown): unknown => {
  if (Object.prototype.toString.call(value) === '[object ExactInteger]') {
    // An integer beyond 2^53 a twin kept as the digits a client sent: CEL's integers are BigInt, so it stays exact.
    return BigInt(String(value));
  }
  if (Array.isArray(value)) {
    return Array.from(value as unknown[], plain);
  }
  if (value !== null && typeof value === 'object' && Object.prototype.toString.call(value) === '[object Object]') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  }
  return value;
};

/** One event of the log as predicates see it (PREDICATES.md). */
const eventOf = ({ seq, at, actor, event }: JudgedLogEntry): PredicateEvent => {
  const when = new Date(at);
  if (event.type === 'domain') {
    const service = typeof event.service === 'string' ? event.service : '';
    return new PredicateEvent(
      seq,
      when,
      service,
      String(event.name),
      actor ?? null,
      null,
      null,
      plain(event.data ?? {}),
    );
  }
  if (event.type.startsWith('record.')) {
    const [service, ...table] = String(event.table).split('/');
    return new PredicateEvent(
      seq,
      when,
      service,
      event.type,
      actor ?? null,
      table.join('/'),
      String(event.id),
      plain(event.record ?? {}),
    );
  }
  const { type, service, ...data } = event;
  return new PredicateEvent(
    seq,
    when,
    typeof service === 'string' ? service : '',
    type,
    actor ?? null,
    null,
    null,
    data,
  );
};

/** The instance's values as predicates see them: money as `{amount, currency}`, dates as timestamps. */
const valuesOf = (
  instance: TaskInstance,
): { values: Record<string, unknown>; types: Record<string, PredicateValueType> } => {
  const values: Record<string, unknown> = {};
  const types: Record<string, PredicateValueType> = {};
  for (const [name, value] of Object.entries(instance.values)) {
    const fact = instance.facts?.[name];
    types[name] = fact
      ? typeOfFact(fact.type)
      : typeof value === 'number'
        ? 'double'
        : typeof value === 'boolean'
          ? 'bool'
          : 'string';
    values[name] =
      fact?.type === 'money'
        ? { amount: fact.amount, currency: fact.currency }
        : fact?.type === 'date'
          ? new Date(`${fact.value}T00:00:00Z`)
          : value;
  }
  return { values, types };
};

type PredicateEnvironment = ReturnType<typeof predicateEnvironment>;

/**
 * Environments compiled once per shape (the instance's value types and the tables read), not per judgement: every
 * episode of a scenario judges the same predicates on the same shape, several times each (the parties' state
 * reactions, the outcome, the milestones). An environment is frozen and evaluation keeps no state in it, so sharing
 * one changes no verdict. Bounded: a process judging many scenarios starts over rather than grow.
 */
const compiled = new Map<string, PredicateEnvironment>();
const readsOf = new Map<string, { tables: string[]; fields: string[] }>();
const remembered = <T>(cache: Map<string, T>, key: string, make: () => T): T => {
  let found = cache.get(key);
  if (found === undefined) {
    if (cache.size >= 512) {
      cache.clear();
    }
    found = make();
    cache.set(key, found);
  }
  return found;
};

/**
 * Judges named predicates against the records and log the twins hold: reads only the tables they name, fills the
 * fields they select with null where a record lacks them, and evaluates each. A predicate that cannot be evaluated
 * (a table the episode lacks, a date that is none) is not met, with the reason.
 */
export const evaluatePredicates = async (
  records: EpisodeRecords,
  subject: PredicateSubject,
  predicates: Record<string, string>,
): Promise<Record<string, { met: boolean; reason?: string }>> => {
  const { values, types } = valuesOf(subject.instance);
  const reads = new Map<string, { tables: string[]; fields: string[] }>();
  const typesKey = JSON.stringify(types);
  for (const [name, when] of Object.entries(predicates)) {
    reads.set(
      name,
      remembered(readsOf, JSON.stringify([typesKey, when]), () =>
        predicateReads(
          remembered(compiled, JSON.stringify([typesKey, {}]), () =>
            predicateEnvironment({ values: types, tables: {} }),
          ),
          when,
        ),
      ),
    );
  }
  const wanted = new Set([...reads.values()].flatMap((r) => r.tables));
  const selected = new Set([...reads.values()].flatMap((r) => r.fields));
  const services: Record<string, Record<string, Record<string, unknown>[]>> = {};
  const tables: PredicateShape['tables'] = {};
  if (wanted.size > 0) {
    for (const key of await records.tables()) {
      const [service, ...rest] = key.split('/');
      const [serviceName, tableName] = [predicateName(service), predicateName(rest.join('/'))];
      if (!wanted.has(`${serviceName}.${tableName}`)) {
        continue;
      }
      const rows = await records.records(key);
      const fields = new Set([...rows.flatMap((row) => Object.keys(row)), ...selected]);
      (services[serviceName] ??= {})[tableName] = Array.from(rows, (row) => ({
        ...Object.fromEntries([...fields].map((field) => [field, null])),
        ...(plain(row) as Record<string, unknown>),
      }));
      (tables[service] ??= {})[rest.join('/')] = null;
    }
  }
  const [log, now] = await Promise.all([records.log(), records.now()]);
  // The reading environment above has no calendar; this one has, so their keys differ by what they were given.
  const env = remembered(compiled, JSON.stringify([typesKey, tables, 'calendar']), () =>
    predicateEnvironment({ values: types, tables }, calendar),
  );
  const context = {
    ...values,
    services,
    events: Array.from(log, eventOf),
    agent: { id: subject.agent.employeeId, email: subject.agent.email, slack_user: subject.agent.slackUser },
    start: new Date(subject.startAt),
    now: new Date(now),
  };
  const verdicts: Record<string, { met: boolean; reason?: string }> = {};
  for (const [name, when] of Object.entries(predicates)) {
    try {
      const result: unknown = env.evaluate(when, context);
      verdicts[name] = result === true ? { met: true } : { met: false, reason: 'the predicate does not hold' };
    } catch (error) {
      verdicts[name] = {
        met: false,
        reason: `the predicate could not be evaluated: ${(error as Error).message.split('\n')[0]}`,
      };
    }
  }
  return verdicts;
};
