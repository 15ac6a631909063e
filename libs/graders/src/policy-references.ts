import { namesInTemplate } from '@libs/scenarios';
import type { EventPattern, PolicySet, Rule } from '@libs/stack-model';

/** What exists for a policy set's rules to name: the tasks' values, and (when known) the events and packs of the stack. */
export interface PolicyNames {
  /** Values of every scenario that applies the set: variables, derived, hidden, the parties'. */
  values?: ReadonlySet<string>;
  /** Domain events the stack's twins record. */
  events?: ReadonlySet<string>;
  /** Packs among the stack's services. */
  packs?: ReadonlySet<string>;
}

export interface PolicyProblem {
  pointer: string;
  message: string;
}

/** Names a rule reads from the task, each with where it stands in the rule. */
const valueReferences = (rule: Rule): [string, string][] => {
  const templates = (pointer: string, value: unknown): [string, string][] =>
    typeof value === 'string' ? namesInTemplate(value).map((name) => [pointer, name]) : [];
  const where = (pointer: string, conditions: Record<string, unknown> | undefined) =>
    Object.entries(conditions ?? {}).flatMap(([field, value]) =>
      (Array.isArray(value) ? value : [value]).flatMap((v, i) =>
        templates(`${pointer}/${field}${Array.isArray(value) ? `/${i}` : ''}`, v),
      ),
    );
  const pattern = (pointer: string, p: EventPattern) => where(`${pointer}/where`, p.where);
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
    case 'sequence':
      return [...pattern('/first', rule.first), ...pattern('/then', rule.then)];
    case 'rate':
    case 'forbidden-event':
      return pattern('/events', rule.events);
    default:
      return [];
  }
};

const eventReferences = (rule: Rule): [string, string][] =>
  rule.kind === 'sequence'
    ? [
        ['/first/event', rule.first.event],
        ['/then/event', rule.then.event],
      ]
    : rule.kind === 'rate' || rule.kind === 'forbidden-event'
      ? [['/events/event', rule.events.event]]
      : [];

const packReferences = (rule: Rule): [string, string][] =>
  rule.kind === 'state'
    ? [['/table', rule.table.split('.')[0]]]
    : rule.kind === 'collateral'
      ? rule.may_change.map((m, i) => [`/may_change/${i}/table`, m.table.split('.')[0]])
      : [];

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
      ...(names.packs
        ? packReferences(rule)
            .filter(([, pack]) => !names.packs?.has(pack))
            .map(([pointer, pack]) => ({
              pointer: `${at}${pointer}`,
              message: `the stack has no "${pack}" pack service`,
            }))
        : []),
    ];
  });
