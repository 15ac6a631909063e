import type { Scenario, VariableSpec } from '@libs/stack-model';

import type { HiddenFact } from '../hidden-facts';
import { hiddenFactType } from '../hidden-facts';
import { partyValueNames } from '../task-instance';
import type { Value } from '../scenario-values';
import {
  checkPredicate,
  describePredicateProblem,
  predicateContextNames,
  predicateEnvironment,
  PredicateShape,
  PredicateValueType,
} from './predicate-language';

const typeOfValue = (value: Value): PredicateValueType =>
  typeof value === 'number' ? 'double' : typeof value === 'boolean' ? 'bool' : 'string';

const typeOfVariable = (spec: VariableSpec): PredicateValueType => {
  if (typeof spec !== 'object') {
    return typeOfValue(spec);
  }
  if ('choice' in spec) {
    const types = new Set(spec.choice.map(typeOfValue));
    return types.size === 1 ? [...types][0] : 'dyn';
  }
  return 'double';
};

/** A hidden fact's type in predicates: numbers are doubles, money `{amount, currency}`, dates timestamps, the rest text. */
export const typeOfFact = (type: HiddenFact['type']): PredicateValueType =>
  type === 'number' ? 'double' : type === 'money' ? 'money' : type === 'date' ? 'timestamp' : 'string';

/** The values a scenario's predicates may name, with their types, as its instances will give them. */
export const valueTypes = (scenario: Scenario): Record<string, PredicateValueType> => ({
  ...Object.fromEntries(Object.entries(scenario.variables).map(([name, spec]) => [name, typeOfVariable(spec)])),
  ...Object.fromEntries(Object.keys(scenario.derived).map((name) => [name, 'double' as const])),
  ...Object.fromEntries(
    Object.entries(scenario.hidden).map(([name, spec]) => [name, typeOfFact(hiddenFactType(spec))]),
  ),
  ...Object.fromEntries(partyValueNames(scenario).map((name) => [name, 'string' as const])),
});

/**
 * Checks a scenario's success and milestone predicates against the stack: each must parse and name only what exists
 * (a service, table or field of the stack, a value of the scenario, a function of the language), or it could never
 * be met, or always be. Problems point at the predicate, with the column in the message.
 */
export const predicateProblems = (
  scenario: Scenario,
  context: { services: string[]; tables?: Record<string, Record<string, readonly string[] | null>> },
): { pointer: string; message: string }[] => {
  const predicates = [
    ...scenario.success.flatMap((criterion, index) =>
      criterion.kind === 'predicate' ? [{ pointer: `/success/${index}/when`, when: criterion.when }] : [],
    ),
    ...Object.entries(scenario.milestones ?? {}).map(([name, when]) => ({ pointer: `/milestones/${name}`, when })),
    // A party's reaction on a state is judged in the same context, on the twins' records as the episode goes.
    ...Object.entries(scenario.parties).flatMap(([name, party]) =>
      'reactions' in party
        ? party.reactions.flatMap((reaction, index) =>
            'state' in reaction.when
              ? [{ pointer: `/parties/${name}/reactions/${index}/when/state`, when: reaction.when.state }]
              : [],
          )
        : [],
    ),
  ];
  if (predicates.length === 0) {
    return [];
  }
  const values = valueTypes(scenario);
  const problems = Object.keys(values)
    .filter((name) => (predicateContextNames as readonly string[]).includes(name))
    .map((name) => ({
      pointer: `/${scenario.variables[name] !== undefined ? 'variables' : scenario.derived[name] !== undefined ? 'derived' : 'hidden'}/${name}`,
      message: `"${name}" is a name predicates give the context (${predicateContextNames.join(', ')}); rename the value`,
    }));
  if (problems.length > 0) {
    return problems;
  }
  const tables: PredicateShape['tables'] =
    context.tables ?? Object.fromEntries(context.services.map((service) => [service, null]));
  const env = predicateEnvironment({ values, tables });
  return predicates.flatMap(({ pointer, when }) => {
    const problem = checkPredicate(env, when);
    return problem ? [{ pointer, message: describePredicateProblem(problem) }] : [];
  });
};

/**
 * A checker of further predicates in the scenario's context (an oracle's `wait.until`): the problem with one, or
 * undefined when it can be judged.
 */
export const predicateChecker = (
  scenario: Scenario,
  context: { services: string[]; tables?: Record<string, Record<string, readonly string[] | null>> },
): ((when: string) => string | undefined) => {
  const tables: PredicateShape['tables'] =
    context.tables ?? Object.fromEntries(context.services.map((service) => [service, null]));
  const env = predicateEnvironment({ values: valueTypes(scenario), tables });
  return (when) => {
    const problem = checkPredicate(env, when);
    return problem ? describePredicateProblem(problem) : undefined;
  };
};
