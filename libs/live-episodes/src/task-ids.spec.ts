import { EpisodeRequestError } from '@libs/agent-tools';

import { issueEpisodeToken, tokenOpens } from './episode-tokens';
import { parseTaskId, splitOf, splits, taskPage } from './task-ids';

describe('task ids and splits', () => {
  it('reads "<scenario>@<seed>" and refuses anything else, naming the field', () => {
    expect(parseTaskId('invoice-dispute@42')).toEqual({ scenario: 'invoice-dispute', seed: 42 });
    for (const bad of ['invoice-dispute', '@4', 'a@-1', 'a@1.5', 'a@99999999999', 'a b@1', 42, null]) {
      expect(() => parseTaskId(bad)).toThrow(EpisodeRequestError);
      expect(() => parseTaskId(bad)).toThrow(/^task: /);
    }
  });

  it('pages a split seed by seed with every scenario at each seed, and the splits never share a seed', () => {
    const page = taskPage(['a', 'b'], 'test', 0, 3);
    expect(page.tasks.map((t) => t.id)).toEqual([
      `a@${splits.test.firstSeed}`,
      `b@${splits.test.firstSeed}`,
      `a@${splits.test.firstSeed + 1}`,
    ]);
    expect(page).toMatchObject({ total: 2 * (splits.test.lastSeed - splits.test.firstSeed + 1), nextOffset: 3 });
    const last = taskPage(['a', 'b'], 'test', page.total - 1, 10);
    expect(last.nextOffset).toBeNull();
    expect(splits.train.lastSeed).toBeLessThan(splits.test.firstSeed);
    expect([splitOf(splits.train.firstSeed), splitOf(splits.test.lastSeed), splitOf(0)]).toEqual([
      'train',
      'test',
      undefined,
    ]);
  });
});

describe('episode tokens', () => {
  it('are random, opened only by themselves, and kept as a hash', () => {
    const first = issueEpisodeToken();
    const second = issueEpisodeToken();
    expect(first.token).not.toBe(second.token);
    expect(first.hash.toString('hex')).not.toContain(first.token);
    expect(tokenOpens(first.token, first.hash)).toBe(true);
    expect(tokenOpens(second.token, first.hash)).toBe(false);
    expect(tokenOpens(`${first.token}x`, first.hash)).toBe(false);
    expect(tokenOpens('', first.hash)).toBe(false);
  });
});
