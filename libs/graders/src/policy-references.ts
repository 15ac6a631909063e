import { namesIn, namesInTemplate } from '@libs/scenarios';
import type { EventPattern, PolicySet, Rule } from '@libs/stack-model';

/** RFC 6901: a field name with `/` or `~` stays one segment of the pointer. */
const escapePointerSegment = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** What exists for a policy set's rules to name: the tasks' values, and (when known) the events and packs of the stack. */
export interface PolicyNames {
  /** Values of every scenario that applies the set: variables, derived, hidden, the parties'. */
  values?: ReadonlySet<string>;
  /** Domain events the stack's twins record. */
  events?: ReadonlySet<string>;
  /** Packs among the stack's services. */
  packs?: ReadonlySet<string>;
  /**
   * The tables rules may name, by what comes before the dot (a pack, or a service's own name), each with the fields
   * its records carry (empty when not known). When given, it replaces the check by `packs`.
   */
  tables?: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
  /** The chat channels the stack has (none when it has no chat service, and then no channel rule can fire). */
  channels?: ReadonlySet<string>;
  /** The hidden facts of the scenarios that apply the set, with their class and the party each is about. */
  facts?: ReadonlyMap<string, { type: string; subject?: string }>;
  /** The parties of the scenarios that apply the set. */
  parties?: ReadonlySet<string>;
  /** The company's roles and departments (lower case): who an approval rule may ask for. */
  roles?: ReadonlySet<string>;
}

export interface PolicyProblem {
  pointer: string;
  message: string;
}

const expressionNames = (pointer: string, expression: string): [string, string][] => {
  try {
    return namesIn(expression).map((name) => [pointer, name]);
  } catch {
    return [[pointer, expression]];
  }
};

/** Names a rule reads from the task, each with where it stands in the rule. */
const valueReferences = (rule: Rule): [string, string][] => {
  const templates = (pointer: string, value: unknown): [string, string][] =>
    typeof value === 'string' ? namesInTemplate(value).map((name) => [pointer, name]) : [];
  const where = (pointer: string, conditions: Record<string, unknown> | undefined) =>
    Object.entries(conditions ?? {}).flatMap(([field, value]) => {
      const at = `${pointer}/${escapePointerSegment(field)}`;
      if (Array.isArray(value)) {
        return value.flatMap((v, i) => templates(`${at}/${i}`, v));
      }
      return value && typeof value === 'object'
        ? Object.entries(value).flatMap(([op, v]) => templates(`${at}/${op}`, v))
        : templates(at, value);
    });
  const pattern = (pointer: string, p: EventPattern) => [
    ...(Array.isArray(p.by)
      ? p.by.flatMap((a, i) => templates(`${pointer}/by/${i}`, a))
      : templates(`${pointer}/by`, p.by)),
    ...where(`${pointer}/where`, p.where),
  ];
  switch (rule.kind) {
    case 'disclosure':
      return rule.facts.map((fact, i) => [`/facts/${i}`, fact]);
    case 'numeric-bound':
      return (['min', 'max'] as const).flatMap((b) =>
        typeof rule[b] === 'string' ? [[`/${b}`, rule[b]] as [string, string]] : [],
      );
    case 'recipients':
      return (rule.require_cc ?? []).flatMap((a, i) => templates(`/require_cc/${i}`, a));
    case 'state':
      return where('/where', rule.where);
    case 'approval':
      return [
        ...(typeof rule.threshold === 'string' ? expressionNames('/threshold', rule.threshold) : []),
        ...where('/on/where', rule.on?.where),
        ...where('/approval/where', rule.approval?.where),
      ];
    case 'sequence':
      return [...pattern('/first', rule.first), ...pattern('/then', rule.then)];
    case 'response':
      return [...pattern('/request', rule.request), ...pattern('/reply', rule.reply)];
    case 'rate':
    case 'forbidden-event':
      return pattern('/events', rule.events);
    default:
      return [];
  }
};

const eventReferences = (rule: Rule): [string, string][] =>
  rule.kind === 'approval'
    ? [
        ...(rule.on?.event ? [['/on/event', rule.on.event] as [string, string]] : []),
        ...(rule.approval?.event ? [['/approval/event', rule.approval.event] as [string, string]] : []),
      ]
    : rule.kind === 'sequence'
      ? [
          ['/first/event', rule.first.event],
          ['/then/event', rule.then.event],
        ]
      : rule.kind === 'response'
        ? [
            ['/request/event', rule.request.event],
            ['/reply/event', rule.reply.event],
          ]
        : rule.kind === 'rate' || rule.kind === 'forbidden-event'
          ? [['/events/event', rule.events.event]]
          : [];

/**
 * Each table a rule names (`<pack or service>.<table>`), where, and the fields the rule reads of its records (each
 * with its own pointer).
 */
const tableReferences = (rule: Rule): { pointer: string; table: string; fields: [string, string][] }[] => {
  const whereFields = (pointer: string, where: Record<string, unknown> | undefined): [string, string][] =>
    Object.keys(where ?? {}).map((field) => [`${pointer}/where/${escapePointerSegment(field)}`, field]);
  if (rule.kind === 'state') {
    return [{ pointer: '/table', table: rule.table, fields: whereFields('', rule.where) }];
  }
  if (rule.kind === 'collateral') {
    return rule.may_change.map((m, i) => ({ pointer: `/may_change/${i}/table`, table: m.table, fields: [] }));
  }
  if (rule.kind !== 'approval' || !rule.on) {
    return [];
  }
  const on = rule.on;
  const named = (pointer: string, field: string | undefined): [string, string][] =>
    field === undefined ? [] : [[pointer, field]];
  const actionFields: [string, string][] = [
    ...named('/on/amount_field', on.amount_field),
    ...named('/on/key_field', on.key_field),
    ...named('/split_by', rule.split_by),
    ...whereFields('/on', on.where),
  ];
  const source = rule.approval;
  const sourceFields: [string, string][] = [
    ...named('/approval/ref_field', source?.ref_field),
    ...whereFields('/approval', source?.where),
  ];
  const references = on.table ? [{ pointer: '/on/table', table: on.table, fields: actionFields }] : [];
  if (source?.table) {
    references.push({ pointer: '/approval/table', table: source.table, fields: sourceFields });
  } else if (on.table && !source?.event && !source?.channel) {
    references[0].fields.push(...sourceFields);
  }
  return references;
};

const packReferences = (rule: Rule): [string, string][] =>
  tableReferences(rule).map(({ pointer, table }) => [pointer, table.split('.')[0]]);

const splitTable = (table: string): [string, string] => {
  const dot = table.indexOf('.');
  return [table.slice(0, dot), table.slice(dot + 1)];
};

const listed = (names: Iterable<string>): string => [...names].sort().join(', ') || 'none';

const tableProblems = (rule: Rule, tables: NonNullable<PolicyNames['tables']>): PolicyProblem[] =>
  tableReferences(rule).flatMap(({ pointer, table, fields }) => {
    const [owner, name] = splitTable(table);
    const ownTables = tables.get(owner);
    if (!ownTables) {
      return [{ pointer, message: `the stack has no service or pack "${owner}" (it has: ${listed(tables.keys())})` }];
    }
    if (name === '*') {
      return [];
    }
    const known = ownTables.get(name);
    if (!known) {
      return [{ pointer, message: `"${owner}" has no table "${name}" (it has: ${listed(ownTables.keys())})` }];
    }
    return known.size === 0
      ? []
      : fields
          // A dotted path reads into a nested object: its first name must be a field of the records.
          .filter(([, field]) => !known.has(field) && !known.has(field.split('.')[0]))
          .map(([fieldPointer, field]) => ({
            pointer: fieldPointer,
            message: `records of ${table} have no field "${field}"`,
          }));
  });

const eventPatterns = (rule: Rule): [string, EventPattern][] =>
  rule.kind === 'sequence'
    ? [
        ['/first', rule.first],
        ['/then', rule.then],
      ]
    : rule.kind === 'response'
      ? [
          ['/request', rule.request],
          ['/reply', rule.reply],
        ]
      : rule.kind === 'rate' || rule.kind === 'forbidden-event'
        ? [['/events', rule.events]]
        : [];

/**
 * A client's own service tells each record change as `<service>.<table>.<change>` with `table`, `id` and the whole
 * `record` (service-twin.ts): a condition on such an event must read one of those, and a record field its records
 * have (the first name of a dotted path), else it could never match.
 */
const recordEventProblems = (rule: Rule, tables: NonNullable<PolicyNames['tables']>): PolicyProblem[] =>
  eventPatterns(rule).flatMap(([pointer, pattern]) => {
    const [owner, table, change, ...rest] = pattern.event.split('.');
    const known = tables.get(owner)?.get(table);
    if (rest.length > 0 || !['created', 'replaced', 'updated', 'deleted'].includes(change) || !known?.size) {
      return [];
    }
    return Object.keys(pattern.where ?? {}).flatMap((field) => {
      const [head, name] = field.split('.');
      const readable = field === 'table' || field === 'id' || (head === 'record' && (!name || known.has(name)));
      return readable
        ? []
        : [
            {
              pointer: `${pointer}/where/${escapePointerSegment(field)}`,
              message:
                head === 'record'
                  ? `records of ${owner}.${table} have no field "${name}"`
                  : `${pattern.event} carries table, id and record: read the record's fields as record.<field>`,
            },
          ];
    });
  });

const channelProblems = (rule: Rule, channels: ReadonlySet<string>): PolicyProblem[] => {
  if (rule.kind === 'approval' && rule.approval?.channel !== undefined) {
    return channels.has(rule.approval.channel.replace(/^#/, '').toLowerCase())
      ? []
      : [{ pointer: '/approval/channel', message: `the stack's chat has no channel "${rule.approval.channel}"` }];
  }
  if (rule.kind !== 'channels') {
    return [];
  }
  if (channels.size === 0) {
    return [{ pointer: '/kind', message: 'the stack has no chat service whose channels this rule could watch' }];
  }
  return rule.allowed.flatMap((channel, i) =>
    channels.has(channel.replace(/^#/, '').toLowerCase())
      ? []
      : [{ pointer: `/allowed/${i}`, message: `the stack's chat has no channel "${channel}"` }],
  );
};

const searchedAsText = new Set(['text', 'person_name', 'identifier', 'health_condition']);

/** A disclosure rule's facts and classes the scenarios have, and a `subject` audience some fact of it has. */
const factProblems = (rule: Rule, facts: NonNullable<PolicyNames['facts']>): PolicyProblem[] => {
  if (rule.kind !== 'disclosure') {
    return [];
  }
  const problems: PolicyProblem[] = [];
  rule.facts.forEach((name, i) => {
    const type = facts.get(name)?.type;
    if (type === 'date' || type === 'enum') {
      problems.push({
        pointer: `/facts/${i}`,
        message: `"${name}" is a ${type} fact: disclosure looks for numbers, money, text and personal data`,
      });
    }
  });
  rule.classes.forEach((type, i) => {
    if (![...facts.values()].some((f) => f.type === type)) {
      problems.push({
        pointer: `/classes/${i}`,
        message: `no scenario that applies this policy set has a ${type} fact`,
      });
    }
  });
  const subjects = [...facts].some(
    ([name, f]) =>
      f.subject && searchedAsText.has(f.type) && (rule.facts.includes(name) || rule.classes.some((c) => c === f.type)),
  );
  const at = rule.allowed.indexOf('subject');
  if (at >= 0 && !subjects) {
    problems.push({
      pointer: `/allowed/${at}`,
      message: "none of the rule's text or personal facts names its subject",
    });
  }
  return problems;
};

/** The approver an approval rule asks for: a role or department of the company, a party of its scenarios. */
const approverProblems = (rule: Rule, names: PolicyNames): PolicyProblem[] => {
  if (rule.kind !== 'approval' || !rule.approved_by) {
    return [];
  }
  const { role, party } = rule.approved_by;
  return [
    ...(role !== undefined && names.roles && !names.roles.has(role.toLowerCase())
      ? [
          {
            pointer: '/approved_by/role',
            message: `the company has no role or department "${role}" (it has: ${listed(names.roles)})`,
          },
        ]
      : []),
    ...(party !== undefined && names.parties && !names.parties.has(party)
      ? [
          {
            pointer: '/approved_by/party',
            message: `"${party}" is not a party of any scenario that applies this policy set (they have: ${listed(names.parties)})`,
          },
        ]
      : []),
  ];
};

/**
 * Names a policy set's rules use that nothing defines: a misspelt fact or event would make a rule that can never
 * fail, which is worse than no rule. Each problem points into the policy file.
 */
export const policyReferenceProblems = (policy: PolicySet, names: PolicyNames): PolicyProblem[] =>
  policy.rules.flatMap((rule, index) => {
    const at = `/rules/${index}`;
    return [
      ...(names.values
        ? valueReferences(rule)
            .filter(([, name]) => name !== 'agent' && !names.values?.has(name))
            .map(([pointer, name]) => ({
              pointer: `${at}${pointer}`,
              message: `"${name}" is not a value of any scenario that applies this policy set`,
            }))
        : []),
      ...(names.events
        ? eventReferences(rule)
            .filter(([, name]) => name !== 'operation.refused' && !names.events?.has(name))
            .map(([pointer, name]) => ({
              pointer: `${at}${pointer}`,
              message: `no twin of this stack records "${name}"`,
            }))
        : []),
      ...(names.tables
        ? [...tableProblems(rule, names.tables), ...recordEventProblems(rule, names.tables)].map((p) => ({
            pointer: `${at}${p.pointer}`,
            message: p.message,
          }))
        : []),
      ...(names.channels
        ? channelProblems(rule, names.channels).map((p) => ({ pointer: `${at}${p.pointer}`, message: p.message }))
        : []),
      ...(names.facts
        ? factProblems(rule, names.facts).map((p) => ({ pointer: `${at}${p.pointer}`, message: p.message }))
        : []),
      ...approverProblems(rule, names).map((p) => ({ pointer: `${at}${p.pointer}`, message: p.message })),
      ...(names.packs && !names.tables
        ? packReferences(rule)
            .filter(([, pack]) => !names.packs?.has(pack))
            .map(([pointer, pack]) => ({
              pointer: `${at}${pointer}`,
              message: `the stack has no "${pack}" pack service`,
            }))
        : []),
    ];
  });
