import { parseTask } from './rollout-plan';

/** A task item that names nothing to play: `item` is its place in the list asked for (−1: the list as a whole). */
export class RolloutTaskError extends Error {
  constructor(
    readonly item: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The most tasks one rollout plays (each `trials` times). The plan travels in its workflow's input, which Temporal
 * caps at 2 MB a payload (and warns of from 512 KB): 10,000 task names of 40 characters are ~0.4 MB.
 */
export const maxRolloutTasks = 10_000;

/** The most seeds a scenario named without one is played on (`maxRolloutTasks` bounds them in sum). */
export const maxRolloutSeeds = maxRolloutTasks;

/**
 * The tasks a rollout asks for, as `<scenario>@<seed>`, each once in the order given: `all` (every scenario),
 * scenario ids (each on the seeds `first`…`first + count − 1`) and explicit `scenario@seed`. `scenarios` are the
 * stack's scenario ids. The command line and the control plane both read their task lists here, so a list means
 * the same rollout wherever it is given.
 */
export const rolloutTasks = (
  scenarios: readonly string[],
  items: readonly string[],
  seeds: { first: number; count: number },
): string[] => {
  const onSeeds = (scenario: string) => Array.from({ length: seeds.count }, (_, i) => `${scenario}@${seeds.first + i}`);
  const tasks = items.flatMap((raw, index) => {
    const item = raw.trim();
    if (item === '') {
      throw new RolloutTaskError(index, 'an empty item');
    }
    if (item === 'all') {
      return scenarios.flatMap(onSeeds);
    }
    const explicit = parseTask(item);
    const scenario = explicit?.scenario ?? item;
    if (!scenarios.includes(scenario)) {
      throw new RolloutTaskError(
        index,
        `${item.includes('@') && !explicit ? `"${item}" is not <scenario>@<seed>` : `no scenario "${scenario}"`}; the stack has ${scenarios.join(', ') || 'none'}`,
      );
    }
    return explicit ? [item] : onSeeds(scenario);
  });
  if (tasks.length === 0) {
    throw new RolloutTaskError(-1, 'the stack has no scenario to play');
  }
  const unique = [...new Set(tasks)];
  if (unique.length > maxRolloutTasks) {
    throw new RolloutTaskError(
      -1,
      `${unique.length.toLocaleString('en-US')} tasks; a rollout plays at most ${maxRolloutTasks.toLocaleString('en-US')} (split it, or ask for fewer seeds)`,
    );
  }
  return unique;
};

/** The scenario of each task, each once, in order. */
export const scenariosOfTasks = (tasks: readonly string[]): string[] => [
  ...new Set(tasks.map((task) => task.slice(0, task.lastIndexOf('@')))),
];
