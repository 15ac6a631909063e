import type { StackModel } from '@libs/stack-model';

import type { Severity } from './rollout-filters';

/** What a policy says about one rule, for the reviewer: the clause it enforces and the policy's own words. */
export interface PolicyRuleText {
  policy: string;
  clause: string;
  severity: Severity;
  description: string | null;
}

/** Every rule of a stack version's policy sets, by id (a rule id repeated across sets keeps its first). */
export const policyRules = (model: Pick<StackModel, 'policies'> | undefined): Map<string, PolicyRuleText> => {
  const rules = new Map<string, PolicyRuleText>();
  for (const { policy } of model?.policies ?? []) {
    for (const rule of policy.rules) {
      if (!rules.has(rule.id)) {
        rules.set(rule.id, {
          policy: `${policy.id}@${policy.version}`,
          clause: rule.clause,
          severity: rule.severity,
          description: rule.description ?? null,
        });
      }
    }
  }
  return rules;
};

export const ruleText = (rules: ReadonlyMap<string, PolicyRuleText>, rule: string): PolicyRuleText | undefined =>
  rules.get(rule);
