import * as path from 'node:path';

import { AgentForInstance, oraclePlanAgent } from '@libs/episode-runs';
import { trialResultOf } from '@libs/episode-host';
import type { PlayTrial } from '@libs/episode-worker';
import { referenceAgents } from '@libs/reference-agents';
import { parseTask, RolloutTaskError, rolloutTasks as tasksOf } from '@libs/rollouts';
import type { Scenario } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-ingestion';
import { UsageError } from '@cli/cli-output';
import { isAgentFile, loadAgentModule } from '@cli/agent-modules';
import type { EpisodeEnvironment } from '@cli/episode-environment';
import { planRoles } from '@cli/validity-roles';

/** The tasks `--tasks` names (comma-separated; see `rolloutTasks` of @libs/rollouts), or a usage error naming it. */
export const rolloutTasks = (model: StackModel, spec: string, seeds: { first: number; count: number }): string[] => {
  try {
    return tasksOf(
      model.scenarios.map((s) => s.scenario.id),
      spec.split(','),
      seeds,
    );
  } catch (error) {
    if (error instanceof RolloutTaskError) {
      throw new UsageError(
        error.message === 'an empty item' ? `--tasks "${spec}" has an empty item` : `--tasks: ${error.message}`,
      );
    }
    throw error;
  }
};

/** The agent a rollout is given, as a name any rollout worker can resolve: built-in names, or a module's absolute path. */
export const rolloutAgentName = (spec: string): string => (isAgentFile(spec) ? path.resolve(spec) : spec);

/**
 * Makes a rollout's agent for each scenario: `oracle` (the scenario's own plan), `trap:<id>` (one of its traps'
 * plans), a built-in agent, or a user's module (loaded once per process). What a scenario cannot give is a usage
 * error naming it.
 */
export const rolloutAgents = () => {
  const modules = new Map<string, ReturnType<typeof loadAgentModule>>();
  return async (name: string, scenario: Scenario): Promise<AgentForInstance> => {
    if (isAgentFile(name)) {
      if (!modules.has(name)) {
        modules.set(name, loadAgentModule(name));
      }
      return modules.get(name)!;
    }
    if (name === 'oracle') {
      if (!scenario.oracle) {
        throw new UsageError(`scenario ${scenario.id} declares no oracle plan to play`);
      }
      return oraclePlanAgent(scenario);
    }
    if (name.startsWith('trap:')) {
      const trap = scenario.oracle
        ? planRoles(scenario, referenceAgents.get('idle')!).find((r) => r.role === name)
        : undefined;
      if (!trap) {
        throw new UsageError(
          `scenario ${scenario.id} has no trap "${name.slice('trap:'.length)}" (its traps: ${scenario.traps.map((t) => t.id).join(', ') || 'none'})`,
        );
      }
      return trap.agent;
    }
    const builtIn = referenceAgents.get(name);
    if (!builtIn) {
      throw new UsageError(
        `no agent "${name}"; use oracle, trap:<id>, ${[...referenceAgents.keys()].join(', ')}, or a path to your own module (./my-agent.mjs)`,
      );
    }
    return builtIn;
  };
};

/** Plays a trial in this process's episode environment: its task's scenario and seed, the agent, then the grade. */
export const trialPlayer =
  (environment: EpisodeEnvironment, model: StackModel, agents: ReturnType<typeof rolloutAgents>): PlayTrial =>
  async ({ task, agent, rolloutId }) => {
    const parsed = parseTask(task);
    const scenario = model.scenarios.find((s) => s.scenario.id === parsed?.scenario);
    if (!parsed || !scenario) {
      throw new Error(`task ${task} names no scenario of this stack version`);
    }
    const played = await environment.play(scenario, parsed.seed, await agents(agent, scenario.scenario), {
      actor: `rollout:${rolloutId}`,
      actorKind: 'system',
      rolloutId,
    });
    return trialResultOf(played);
  };
