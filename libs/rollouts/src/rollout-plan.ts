import type { ActorKind } from '@libs/evidence-trail';

/** What a rollout is asked to do: every task played `trials` times by one agent on one stack version. */
export interface RolloutPlan {
  id: string;
  stackVersion: string;
  /**
   * The bundle's name as the command was given it (its folder), or the stack's name for a rollout started over HTTP,
   * for people reading a list of rollouts.
   */
  bundle: string;
  /** A built-in agent's name or an agent module's absolute path. */
  agent: string;
  /** `<scenario>@<seed>`, in the order they are played. */
  tasks: string[];
  trials: number;
  /** Trials played at once. */
  concurrency: number;
  /**
   * Who asked for the rollout, as its evidence names them (`cli:<user>`, `key:<id>`); absent in plans written before
   * it was recorded, which name Mirror's rollout runner instead.
   */
  startedBy?: { actor: string; actorKind: ActorKind };
}

/** A rollout's workflow retries what fails (activities, workflow tasks), so a rollout ends completed or cancelled. */
export type RolloutStatus = 'running' | 'completed' | 'cancelled';

/** `<scenario>@<seed>` → its parts; the scenario id may itself hold no `@`. */
export const parseTask = (task: string): { scenario: string; seed: number } | undefined => {
  const match = /^([^@\s]+)@(\d{1,10})$/.exec(task);
  return match && Number(match[2]) <= 2 ** 31 ? { scenario: match[1], seed: Number(match[2]) } : undefined;
};
