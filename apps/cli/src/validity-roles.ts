import type { AgentForInstance } from '@libs/episode-runs';
import { planAgent, ReferenceAgent } from '@libs/reference-agents';
import { Scenario, trapSteps } from '@libs/scenarios';
import type { PlayedEpisode } from '@cli/episode-environment';

const violated = (e: PlayedEpisode) =>
  e.verdicts
    .filter((v) => v.status === 'fail' && !v.milestone)
    .map((v) => v.rule)
    .join(', ') || 'none';

type Judge = (e: PlayedEpisode) => string | undefined;

const oracleJudge: Judge = (e) =>
  e.passed
    ? undefined
    : `the oracle did not pass (${e.status}: ${e.reason}; violations: ${violated(e)}): the task cannot be done within its policy, or its success terms are out of reach`;

const idleJudge: Judge = (e) =>
  e.passed !== false || (e.reward ?? 0) > 0
    ? `an agent that does nothing earned ${e.reward} (passed: ${e.passed}): the task rewards doing nothing`
    : undefined;

/**
 * What each role must get on every seed for a task to be valid, and why it matters: the oracle (the diligent agent,
 * or the user's own) proves the task can be done within policy; idle and sloppy prove nothing less earns a reward.
 * These are the built-in roles of scenarios without an `oracle:` of their own (the procurement pack's).
 */
export const roles: { role: 'oracle' | 'idle' | 'sloppy'; judge: Judge }[] = [
  { role: 'oracle', judge: oracleJudge },
  { role: 'idle', judge: idleJudge },
  {
    role: 'sloppy',
    judge: (e) => {
      // Sloppy tells the supplier its target price and splits the purchase under the approval threshold.
      const caught = new Set(e.verdicts.filter((v) => v.status === 'fail').map((v) => v.kind));
      const missed = (['disclosure', 'approval'] as const).filter((kind) => !caught.has(kind));
      if (missed.length > 0) {
        return `the sloppy agent's ${missed.join(' and ')} went unpunished (reward ${e.reward}): the policy set has no rule that catches it`;
      }
      return (e.reward ?? 0) > 0 || e.passed !== false
        ? `the sloppy agent was caught (${violated(e)}) yet earned ${e.reward} (passed: ${e.passed}): a violation does not cost the reward it should`
        : undefined;
    },
  },
];

/** A role a scenario is checked with: who plays it, and what it must get on every seed. */
export interface ValidityRole {
  role: string;
  agent: AgentForInstance;
  judge: Judge;
  /** A trap must also earn less than the oracle on the same seed. */
  belowOracle?: boolean;
}

/** A trap must be caught by every rule it names, and a caught trap must not pass. */
export const trapJudge =
  (trap: string, catches: readonly string[]): Judge =>
  (e) => {
    const failed = new Set(e.verdicts.filter((v) => v.status === 'fail' && !v.milestone).map((v) => v.rule));
    const missed = catches.filter((rule) => !failed.has(rule));
    if (missed.length > 0) {
      return `trap ${trap} went uncaught by ${missed.join(', ')} (violations: ${violated(e)}; reward ${e.reward}): the rule cannot catch what it is written for`;
    }
    return e.passed !== false
      ? `trap ${trap} was caught (${violated(e)}) yet passed: a violation does not cost the reward it should`
      : undefined;
  };

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

/**
 * The roles of a scenario that declares its oracle: the oracle's plan, the idle agent, and one agent per trap. Nothing
 * here knows a domain: the plans are the scenario's.
 */
export const planRoles = (scenario: Scenario, idle: ReferenceAgent, oracle?: ReferenceAgent): ValidityRole[] => {
  const plan = scenario.oracle;
  if (!plan) {
    throw new Error(`scenario ${scenario.id} declares no oracle`);
  }
  return [
    {
      role: 'oracle',
      agent: oracle ?? oraclePlanAgent(scenario),
      judge: oracleJudge,
    },
    { role: 'idle', agent: idle, judge: idleJudge },
    ...scenario.traps.map((trap) => {
      const steps = trapSteps(plan, trap);
      const name = `trap:${trap.id}`;
      return {
        role: name,
        agent: {
          name,
          forInstance: (instance, insight) => planAgent(name, steps, instance.values, insight),
        } satisfies AgentForInstance,
        judge: trapJudge(trap.id, trap.catches),
        belowOracle: true,
      };
    }),
  ];
};

/** The built-in roles, for scenarios without an oracle of their own. */
export const builtInRoles = (agents: { oracle: ReferenceAgent; idle: ReferenceAgent; sloppy: ReferenceAgent }) =>
  roles.map(({ role, judge }): ValidityRole => ({ role, agent: agents[role], judge }));

/** A trap that earned as much as the oracle on its seed: the reward does not tell them apart. */
export const belowOracleProblem = (trap: PlayedEpisode, oracle: PlayedEpisode | undefined): string | undefined =>
  oracle && typeof oracle.reward === 'number' && (trap.reward ?? 0) >= oracle.reward
    ? `${trap.agent} earned ${trap.reward}, no less than the oracle's ${oracle.reward} on the same seed`
    : undefined;
