import { hiddenFactType, partyValueNames } from '@libs/scenarios';
import {
  BundleFiles,
  parseDocument,
  schemaProblems,
  SourceLocator,
  IngestionError,
  IngestionProblem,
} from '@libs/bundle-documents';
import { PolicyModel, policySetSchema, ScenarioModel } from '@libs/stack-model';

import { PolicyNames, policyReferenceProblems } from './policy-references';

/** The bundle's policy sets: those `mirror.yaml` lists, else every YAML or JSON file under `policies/`. */
export const policyFiles = (files: BundleFiles, listed: string[] | undefined): string[] =>
  listed ?? files.list().filter((file) => /^policies\/.+\.(ya?ml|json)$/i.test(file));

/** Reads and checks every policy set; all problems at once, each located by line and pointer. */
export const readPolicies = (files: BundleFiles, locator: SourceLocator, paths: string[]): PolicyModel[] => {
  const problems: IngestionProblem[] = [];
  const policies: PolicyModel[] = [];
  for (const file of paths) {
    if (!files.has(file)) {
      problems.push(locator.problem(file, '', 'policy file is not in the bundle'));
      continue;
    }
    const parsed = policySetSchema.safeParse(parseDocument(file, files.read(file)));
    if (!parsed.success) {
      for (const { pointer, message } of schemaProblems(parsed.error.issues)) {
        problems.push(locator.problem(file, pointer, message));
      }
      continue;
    }
    const ids = new Set<string>();
    parsed.data.rules.forEach((rule, index) => {
      if (ids.has(rule.id)) {
        problems.push(locator.problem(file, `/rules/${index}/id`, `rule id "${rule.id}" is used twice`));
      }
      ids.add(rule.id);
    });
    if (parsed.data.document && !files.has(parsed.data.document)) {
      problems.push(locator.problem(file, '/document', `"${parsed.data.document}" is not in the bundle`));
    }
    policies.push({ file, policy: parsed.data });
  }
  if (problems.length > 0) {
    throw new IngestionError('POLICY_INVALID', problems);
  }
  return policies;
};

/**
 * What the rules name must exist: a fact or value of some scenario that applies the set; a service or pack of the
 * stack, one of its tables and the fields of its records; an event one of its twins records; a channel of its chat.
 * A misspelt name would make a rule that can never fire. `names` is what the stack has (ingestion knows it).
 */
export const checkPolicyReferences = (
  policies: PolicyModel[],
  scenarios: ScenarioModel[],
  names: Omit<PolicyNames, 'values'>,
  locator: SourceLocator,
): void => {
  const problems = policies.flatMap(({ file, policy }) => {
    const applying = scenarios.filter((s) => s.scenario.policies.includes(file)).map((s) => s.scenario);
    const values = new Set(
      applying.flatMap((s) => [
        ...Object.keys(s.variables),
        ...Object.keys(s.derived),
        ...Object.keys(s.hidden),
        ...partyValueNames(s),
      ]),
    );
    const facts = new Map(
      applying.flatMap((s) =>
        Object.entries(s.hidden).map(([name, spec]): [string, { type: string; subject?: string }] => [
          name,
          {
            type: hiddenFactType(spec),
            ...(typeof spec === 'object' && 'subject' in spec && spec.subject ? { subject: spec.subject } : {}),
          },
        ]),
      ),
    );
    const parties = new Set(applying.flatMap((s) => Object.keys(s.parties)));
    // Values come from the scenarios that apply the set: a set no scenario applies has none to check yet.
    const known = applying.length > 0 ? { values, facts, parties } : {};
    return policyReferenceProblems(policy, { ...names, ...known }).map((p) =>
      locator.problem(file, p.pointer, p.message),
    );
  });
  if (problems.length > 0) {
    throw new IngestionError('POLICY_INVALID', problems);
  }
};

/**
 * Every rule a scenario's trap names in `catches` must be a rule of a policy set the scenario applies: a trap naming
 * any other could never be caught by it, and `mirror check` would fail on every seed for a reason ingest can tell.
 */
export const checkTrapCatches = (policies: PolicyModel[], scenarios: ScenarioModel[], locator: SourceLocator): void => {
  const problems = scenarios.flatMap(({ file, scenario }) => {
    const rules = policies
      .filter((p) => scenario.policies.includes(p.file))
      .flatMap((p) => p.policy.rules.map((rule) => rule.id));
    return scenario.traps.flatMap((trap, t) =>
      trap.catches.flatMap((rule, c) =>
        rules.includes(rule)
          ? []
          : [
              locator.problem(
                file,
                `/traps/${t}/catches/${c}`,
                `no policy set the scenario applies has a rule "${rule}"${rules.length > 0 ? `; they have ${rules.join(', ')}` : '; it applies none'}`,
              ),
            ],
      ),
    );
  });
  if (problems.length > 0) {
    throw new IngestionError('SCENARIO_INVALID', problems);
  }
};
