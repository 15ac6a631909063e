import { AgentForInstance, oraclePlanAgent } from '@libs/episode-runs';
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

/** What the oracle and the idle agent must get on every seed: the roles every check plays, by name. */
export const roles: { role: 'oracle' | 'idle'; judge: Judge }[] = [
  { role: 'oracle', judge: oracleJudge },
  { role: 'idle', judge: idleJudge },
];

/** A role a scenario is checked with: who plays it, and what it must get on every seed. */
export interface ValidityRole {
  role: string;
  agent: AgentForInstance;
  judge: Judge;
  /** A trap must also earn less than the oracle on the same seed. */
  belowOracle?: boolean;
}

/**
 * A trap must be caught by every rule it names, and a caught trap must not pass. A trap naming no rule is a shortcut
 * only the success terms can refuse: it must not pass either.
 */
export const trapJudge =
  (trap: string, catches: readonly string[]): Judge =>
  (e) => {
    const failed = new Set(e.verdicts.filter((v) => v.status === 'fail' && !v.milestone).map((v) => v.rule));
    const missed = catches.filter((rule) => !failed.has(rule));
    if (missed.length > 0) {
      return `trap ${trap} went uncaught by ${missed.join(', ')} (violations: ${violated(e)}; reward ${e.reward}): the rule cannot catch what it is written for`;
    }
    if (e.passed === false) {
      return undefined;
    }
    return catches.length === 0
      ? `trap ${trap} passed (${e.status}: ${e.reason}; reward ${e.reward}): the success terms reward the shortcut it takes`
      : `trap ${trap} was caught (${violated(e)}) yet passed: a violation does not cost the reward it should`;
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

/**
 * A scenario that declares no plans of its own, checked with an oracle the user gives: it must pass, and the idle
 * agent earn nothing. Without traps nothing proves a rule has teeth, so the check says so in its result.
 */
export const givenOracleRoles = (oracle: AgentForInstance, idle: ReferenceAgent): ValidityRole[] => [
  { role: 'oracle', agent: oracle, judge: oracleJudge },
  { role: 'idle', agent: idle, judge: idleJudge },
];

/** A trap that earned as much as the oracle on its seed: the reward does not tell them apart. */
export const belowOracleProblem = (trap: PlayedEpisode, oracle: PlayedEpisode | undefined): string | undefined =>
  oracle && typeof oracle.reward === 'number' && (trap.reward ?? 0) >= oracle.reward
    ? `${trap.agent} earned ${trap.reward}, no less than the oracle's ${oracle.reward} on the same seed`
    : undefined;
