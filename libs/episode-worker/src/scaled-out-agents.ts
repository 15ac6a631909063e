import { AgentForInstance, oraclePlanAgent } from '@libs/episode-runs';
import { referenceAgents } from '@libs/reference-agents';
import type { Scenario } from '@libs/scenarios';

/**
 * What a scaled-out worker can play, by name: the built-in agents and each scenario's oracle plan. A user's module
 * is loaded only by the process given its path, never by a worker that took a trial from a shared queue.
 */
export const scaledOutAgentNames = (): string[] => ['oracle', ...referenceAgents.keys()];

/** The agent a scaled-out worker gives a trial of `scenario`; undefined when it cannot give that one. */
export const scaledOutAgent = (name: string, scenario: Scenario): AgentForInstance | undefined =>
  name === 'oracle' ? (scenario.oracle ? oraclePlanAgent(scenario) : undefined) : referenceAgents.get(name);

/** The scenarios of `scenarios` a scaled-out worker cannot give `name` for (empty: it can play them all). */
export const scenariosWorkersCannotPlay = (name: string, scenarios: readonly Scenario[]): string[] =>
  scenarios.filter((scenario) => !scaledOutAgent(name, scenario)).map((scenario) => scenario.id);
