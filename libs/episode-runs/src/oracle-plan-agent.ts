import { planAgent } from '@libs/reference-agents';
import type { Scenario } from '@libs/scenarios';

import type { AgentForInstance } from './episode-runner';

/** The generic oracle agent following the scenario's own plan, made for each instance. */
export const oraclePlanAgent = (scenario: Scenario): AgentForInstance => {
  const plan = scenario.oracle;
  if (!plan) {
    throw new Error(`scenario ${scenario.id} declares no oracle`);
  }
  return {
    name: 'oracle',
    forInstance: (instance, insight) => planAgent('oracle', plan.steps, instance.values, insight),
  };
};
