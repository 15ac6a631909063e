import { EpisodeRequestError } from '@libs/agent-tools';

/**
 * Tasks are scenarios × seeds, written `<scenario>@<seed>`. Seeds are split by range so a policy trained on the train
 * split never met a test instance: train 1–10,000, test 100,001–101,000 (instances are drawn under the installation's
 * instance key, so the same seed is the same task within an installation only).
 */
export const splits = {
  train: { firstSeed: 1, lastSeed: 10_000 },
  test: { firstSeed: 100_001, lastSeed: 101_000 },
} as const;

export type SplitName = keyof typeof splits;

export const splitOf = (seed: number): SplitName | undefined =>
  (Object.keys(splits) as SplitName[]).find((name) => seed >= splits[name].firstSeed && seed <= splits[name].lastSeed);

export const parseTaskId = (task: unknown): { scenario: string; seed: number } => {
  const match = typeof task === 'string' ? /^([A-Za-z0-9][\w.-]{0,127})@(\d{1,10})$/.exec(task) : null;
  const seed = match ? Number(match[2]) : NaN;
  if (!match || !Number.isSafeInteger(seed) || seed > 2 ** 31) {
    throw new EpisodeRequestError(
      'task_invalid',
      400,
      `task: must be "<scenario>@<seed>" (a seed from 0 to 2^31), not ${JSON.stringify(task)?.slice(0, 80)}`,
    );
  }
  return { scenario: match[1], seed };
};

/** One page of a split's tasks, seed by seed, every scenario at each seed (so a page mixes the scenarios). */
export const taskPage = (scenarios: readonly string[], split: SplitName, offset: number, limit: number) => {
  const { firstSeed, lastSeed } = splits[split];
  const total = scenarios.length * (lastSeed - firstSeed + 1);
  const end = Math.min(total, offset + limit);
  const tasks = [];
  for (let i = offset; i < end; i++) {
    const scenario = scenarios[i % scenarios.length];
    const seed = firstSeed + Math.floor(i / scenarios.length);
    tasks.push({ id: `${scenario}@${seed}`, scenario, seed, split });
  }
  return { tasks, total, offset, limit, nextOffset: end < total ? end : null };
};
