import type { PlayedEpisode } from '@cli/episode-environment';

import { inParallel, table, tally } from './episode-batch';

describe(inParallel.name, () => {
  it('runs at most K at once and returns the results in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const results = await inParallel([30, 5, 20, 1, 10], 2, async (ms) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running--;
      return ms * 2;
    });
    expect(results).toEqual([60, 10, 40, 2, 20]);
    expect(most).toBe(2);
  });

  it('starts nothing after a failure, lets the running ones finish, then throws the first failure', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const failure = inParallel([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      await new Promise((resolve) => setTimeout(resolve, n === 1 ? 30 : 5));
      if (n === 2) {
        throw new Error('two');
      }
      finished.push(n);
      return n;
    });
    await expect(failure).rejects.toThrow('two');
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([1]);
  });
});

describe(tally.name, () => {
  const episode = (status: string, reward: number | null, passed: boolean | null, agentError?: string) =>
    ({ status, reward, passed, ...(agentError ? { agentError } : {}) }) as unknown as PlayedEpisode;

  it('counts infrastructure errors apart: never in the pass rate or the mean reward', () => {
    expect(
      tally([
        episode('succeeded', 0.9, true),
        episode('failed', 0.1, false),
        episode('succeeded', 0, false, 'the agent stopped with an error: boom'),
        episode('infrastructure_error', null, null),
      ]),
    ).toEqual({
      episodes: 4,
      infrastructureErrors: 1,
      agentErrors: 1,
      passed: 1,
      passRate: 0.3333,
      meanReward: 0.3333,
    });
    expect(tally([episode('infrastructure_error', null, null)])).toMatchObject({ passRate: null, meanReward: null });
  });

  it('prints columns as wide as their widest cell', () => {
    expect(
      table([
        ['a', 'bb'],
        ['ccc', 'd'],
      ]),
    ).toBe('a    bb\nccc  d\n');
  });
});
