import { MockActivityEnvironment } from '@temporalio/testing';

import type { RolloutEpisodeResult, RolloutReport } from '@libs/rollouts';

import { createRolloutActivities, RolloutStore, RolloutTrial } from './rollout.activities';

const version = 'a'.repeat(64);

/** The store's contract as the repository keeps it: a trial's first record is the one kept. */
const memoryStore = (): RolloutStore & {
  rows: Map<string, RolloutEpisodeResult>;
  closed: Map<string, RolloutReport | null>;
} => {
  const rows = new Map<string, RolloutEpisodeResult>();
  const closed = new Map<string, RolloutReport | null>();
  return {
    rows,
    closed,
    open: () => Promise.resolve(),
    episodes: (tenantId, rolloutId) =>
      Promise.resolve([...rows].filter(([key]) => key.startsWith(`${tenantId}/${rolloutId}/`)).map(([, r]) => r)),
    find: (tenantId) => Promise.resolve(tenantId === 't' ? { trials: 2 } : undefined),
    episode: (tenantId, rolloutId, task, trial) =>
      Promise.resolve(rows.get(`${tenantId}/${rolloutId}/${task}#${trial}`)),
    recordEpisode: (tenantId, rolloutId, result) => {
      const key = `${tenantId}/${rolloutId}/${result.task}#${result.trial}`;
      if (!rows.has(key)) {
        rows.set(key, result);
      }
      return Promise.resolve(rows.get(key)!);
    },
    close: (tenantId, rolloutId, _status, report) => {
      closed.set(`${tenantId}/${rolloutId}`, report);
      return Promise.resolve();
    },
  };
};

const trial: RolloutTrial = {
  tenantId: 't',
  rolloutId: 'r1',
  stackVersion: version,
  task: 'intake@3',
  trial: 2,
  agent: 'oracle',
};
const played = { episodeId: 'e1', status: 'succeeded', passed: true, reward: 1, violations: [], reason: 'done' };

describe(createRolloutActivities.name, () => {
  it('closes a rollout with the report on every stored trial and answers the workflow with its tallies alone', async () => {
    const store = memoryStore();
    const sut = createRolloutActivities({ tenantId: 't', stackVersion: version, store, play: jest.fn() });
    for (const [task, trialNumber, passed] of [
      ['intake@1', 1, true],
      ['intake@1', 2, false],
      ['intake@2', 1, true],
      ['intake@2', 2, true],
    ] as const) {
      await sut.recordTrial('t', 'r1', { ...played, task, trial: trialNumber, passed, reward: passed ? 1 : 0 });
    }

    const result = await new MockActivityEnvironment().run(sut.completeRollout, 't', 'r1');

    const report = store.closed.get('t/r1');
    expect(report?.tasks.map((t) => t.task)).toEqual(['intake@1', 'intake@2']);
    expect(report?.overall).toMatchObject({ episodes: 4, passed: 3, tasks: 2 });
    expect(report?.overall.passHat['2']).toBe(0.5);
    expect(result).toEqual({ trials: 2, overall: report?.overall });
    await expect(new MockActivityEnvironment().run(sut.completeRollout, 'other', 'r1')).rejects.toThrow(
      'this worker plays rollouts of tenant t only',
    );
  });

  it('plays a trial once: a retried attempt gets what the first recorded', async () => {
    const store = memoryStore();
    const play = jest.fn().mockResolvedValue(played);
    const sut = createRolloutActivities({ tenantId: 't', stackVersion: version, store, play });
    const environment = new MockActivityEnvironment({ attempt: 1 });
    await expect(environment.run(sut.playTrial, trial)).resolves.toEqual({ ...played, task: 'intake@3', trial: 2 });
    play.mockResolvedValue({ ...played, episodeId: 'e2' });
    await expect(new MockActivityEnvironment({ attempt: 2 }).run(sut.playTrial, trial)).resolves.toMatchObject({
      episodeId: 'e1',
    });
    expect(play).toHaveBeenCalledTimes(1);
  });

  it('keeps the first record when two attempts finish the same trial', async () => {
    const store = memoryStore();
    const play = jest
      .fn()
      .mockResolvedValueOnce(played)
      .mockResolvedValueOnce({ ...played, episodeId: 'e2' });
    const sut = createRolloutActivities({ tenantId: 't', stackVersion: version, store, play });
    const both = await Promise.all([
      new MockActivityEnvironment().run(sut.playTrial, trial),
      new MockActivityEnvironment().run(sut.playTrial, trial),
    ]);
    expect((both as RolloutEpisodeResult[]).map((r) => r.episodeId)).toEqual(['e1', 'e1']);
  });

  it('refuses a trial of another stack version instead of playing it on the wrong twins', async () => {
    const play = jest.fn();
    const sut = createRolloutActivities({ tenantId: 't', stackVersion: version, store: memoryStore(), play });
    await expect(
      new MockActivityEnvironment().run(sut.playTrial, { ...trial, stackVersion: 'b'.repeat(64) }),
    ).rejects.toThrow(/serves stack version aaaaaaaaaaaa, not bbbbbbbbbbbb/);
    expect(play).not.toHaveBeenCalled();
  });

  it('plays each trial for the tenant its rollout names when the worker is bound to none, whatever its environment', async () => {
    const store = memoryStore();
    const play = jest.fn().mockResolvedValue(played);
    const saved = process.env.MIRROR_TENANT;
    process.env.MIRROR_TENANT = 'environment-tenant';
    try {
      const sut = createRolloutActivities({ store, play });
      await new MockActivityEnvironment().run(sut.playTrial, { ...trial, tenantId: 'north' });
      await new MockActivityEnvironment().run(sut.playTrial, { ...trial, tenantId: 'south' });
      await new MockActivityEnvironment().run(sut.recordTrial, 'south', 'r2', {
        ...played,
        task: 'intake@1',
        trial: 1,
      });
    } finally {
      process.env.MIRROR_TENANT = saved;
    }
    expect(play.mock.calls.map(([t]: [RolloutTrial]) => t.tenantId)).toEqual(['north', 'south']);
    expect([...store.rows.keys()]).toEqual(['north/r1/intake@3#2', 'south/r1/intake@3#2', 'south/r2/intake@1#1']);
  });

  it('refuses, for good, a rollout that names no tenant on a worker bound to none, and another tenant on a bound one', async () => {
    const play = jest.fn();
    const unbound = createRolloutActivities({ store: memoryStore(), play });
    const anonymous = { ...trial, tenantId: undefined } as unknown as RolloutTrial;
    await expect(new MockActivityEnvironment().run(unbound.playTrial, anonymous)).rejects.toMatchObject({
      nonRetryable: true,
      message: expect.stringMatching(/names no tenant/),
    });
    await expect(
      new MockActivityEnvironment().run(unbound.openRollout, '', {
        id: 'r1',
        stackVersion: version,
        bundle: 'b',
        agent: 'oracle',
        tasks: [],
        trials: 1,
        concurrency: 1,
      }),
    ).rejects.toMatchObject({ nonRetryable: true });
    const bound = createRolloutActivities({ tenantId: 'north', store: memoryStore(), play });
    await expect(
      new MockActivityEnvironment().run(bound.playTrial, { ...trial, tenantId: 'south' }),
    ).rejects.toMatchObject({ nonRetryable: true, message: expect.stringMatching(/tenant north only, not of south/) });
    await expect(
      new MockActivityEnvironment().run(bound.closeRollout, 'south', 'r1', 'completed' as const, null),
    ).rejects.toThrow(/not of south/);
    expect(play).not.toHaveBeenCalled();
  });

  it('takes up a rollout started before its input carried the tenant only on a worker bound to one', async () => {
    const store = memoryStore();
    const play = jest.fn().mockResolvedValue(played);
    const sut = createRolloutActivities({ tenantId: 'north', store, play });
    await new MockActivityEnvironment().run(sut.playTrial, {
      ...trial,
      tenantId: undefined,
    } as unknown as RolloutTrial);
    expect([...store.rows.keys()]).toEqual(['north/r1/intake@3#2']);
  });
});
