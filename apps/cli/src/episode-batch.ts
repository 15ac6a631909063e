import type { PlayedEpisode } from '@cli/episode-environment';

/**
 * Runs `work` on every item, at most `concurrency` at a time, and returns the results in the items' order (so a
 * report reads the same however the episodes interleaved). After a failure nothing new starts, the ones running
 * finish, and the first failure is thrown: the environment is never shut down under a running episode.
 */
export const inParallel = async <I, R>(
  items: readonly I[],
  concurrency: number,
  work: (item: I) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failure) {
    throw failure.error;
  }
  return results;
};

/** How a group of episodes (one agent on one scenario, or one agent overall) did: what every summary prints. */
export interface EpisodeTally {
  episodes: number;
  /** Episodes Mirror could not run or end: ungraded, not counted in the pass rate or the mean reward. */
  infrastructureErrors: number;
  /** Episodes the agent itself broke (a crash, calls after the end): graded, with reward 0. */
  agentErrors: number;
  passed: number;
  /** Passed over graded episodes (null when none was graded). */
  passRate: number | null;
  meanReward: number | null;
}

export const tally = (episodes: readonly PlayedEpisode[]): EpisodeTally => {
  const graded = episodes.filter((e) => e.status !== 'infrastructure_error');
  const rewards = graded.map((e) => e.reward ?? 0);
  const round = (n: number) => Math.round(n * 10_000) / 10_000;
  return {
    episodes: episodes.length,
    infrastructureErrors: episodes.length - graded.length,
    agentErrors: graded.filter((e) => e.agentError !== undefined).length,
    passed: graded.filter((e) => e.passed).length,
    passRate: graded.length > 0 ? round(graded.filter((e) => e.passed).length / graded.length) : null,
    meanReward: rewards.length > 0 ? round(rewards.reduce((a, b) => a + b, 0) / rewards.length) : null,
  };
};

/** One line of a tally, for the text tables. */
export const tallyCells = (t: EpisodeTally): string[] => [
  String(t.episodes),
  `${t.passed}/${t.episodes - t.infrastructureErrors}`,
  t.passRate === null ? '-' : `${Math.round(t.passRate * 100)} %`,
  t.meanReward === null ? '-' : t.meanReward.toFixed(2),
  String(t.agentErrors),
  String(t.infrastructureErrors),
];

export const tallyHeadings = ['episodes', 'passed', 'pass rate', 'mean reward', 'agent errors', 'infra errors'];

/** A plain text table: columns as wide as their widest cell. */
export const table = (rows: string[][]): string => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => `${r.map((c, i) => c.padEnd(widths[i])).join('  ')}`.trimEnd()).join('\n') + '\n';
};
