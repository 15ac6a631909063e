import { EnvironmentSummary } from '@libs/agent-tools';

import { ProtocolRequestError } from '../protocol-errors';

/**
 * Which task an OpenEnv `reset` starts. OpenEnv's reset carries only optional `seed` and `episode_id` plus whatever the
 * environment accepts, so: `task` ("<scenario>@<seed>") names one; `scenario` and `seed` name one; `seed` alone takes the
 * environment's first scenario; nothing takes the next task of the train split, in order (scenarios × train seeds), so
 * a trainer that only ever calls `reset()` walks the whole split.
 */
export class ResetTaskPicker {
  private readonly nextTrainIndex = new Map<string, number>();

  pick(environment: EnvironmentSummary, data: Record<string, unknown>): string {
    const { task, scenario, seed } = data;
    if (task !== undefined) {
      if (typeof task !== 'string' || !task.includes('@')) {
        throw new ProtocolRequestError('invalid_reset', 422, "reset 'task' must be a string '<scenario>@<seed>'");
      }
      return task;
    }
    if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0)) {
      throw new ProtocolRequestError('invalid_reset', 422, "reset 'seed' must be a non-negative integer");
    }
    if (scenario !== undefined && typeof scenario !== 'string') {
      throw new ProtocolRequestError('invalid_reset', 422, "reset 'scenario' must be a string");
    }
    if (seed !== undefined) {
      return `${scenario ?? this.firstScenario(environment)}@${seed}`;
    }
    if (scenario !== undefined) {
      throw new ProtocolRequestError('invalid_reset', 422, "reset with 'scenario' needs a 'seed' as well");
    }
    return this.nextTrainTask(environment);
  }

  private firstScenario(environment: EnvironmentSummary): string {
    const [first] = environment.scenarios;
    if (first === undefined) {
      throw new ProtocolRequestError('invalid_reset', 422, `environment '${environment.id}' has no scenarios`);
    }
    return first.id;
  }

  private nextTrainTask(environment: EnvironmentSummary): string {
    const { firstSeed, lastSeed } = environment.splits.train;
    const seeds = lastSeed - firstSeed + 1;
    const total = seeds * environment.scenarios.length;
    if (total <= 0) {
      throw new ProtocolRequestError('invalid_reset', 422, `environment '${environment.id}' has no train tasks`);
    }
    const index = this.nextTrainIndex.get(environment.id) ?? 0;
    this.nextTrainIndex.set(environment.id, (index + 1) % total);
    // Scenario-major, as GET /v1/environments/{env}/tasks lists them.
    const scenario = environment.scenarios[Math.floor(index / seeds)];
    return `${scenario?.id ?? this.firstScenario(environment)}@${firstSeed + (index % seeds)}`;
  }
}
