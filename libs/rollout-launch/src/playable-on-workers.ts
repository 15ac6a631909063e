import { scaledOutAgentNames, scenariosWorkersCannotPlay } from '@libs/episode-worker';
import type { Scenario } from '@libs/scenarios';

import { RolloutLaunchError } from './rollout-launch-error';

/**
 * Refuses an agent the scaled-out workers cannot give for every scenario of the rollout, naming those they can: a
 * refusal before anything starts, rather than trials failing one by one on the workers.
 */
export const requirePlayableOnWorkers = (agent: string, scenarios: readonly Scenario[]): void => {
  const unplayable = scenariosWorkersCannotPlay(agent, scenarios);
  if (unplayable.length > 0) {
    throw new RolloutLaunchError(
      'agent',
      `the workers play ${scaledOutAgentNames().join(', ')} (oracle only of a scenario that has one), not "${agent}" for ${unplayable.join(', ')}`,
    );
  }
};
