import { maxRolloutTasks, RolloutTaskError, rolloutTasks, scenariosOfTasks } from './rollout-tasks';

const scenarios = ['intake', 'refund'];
const seeds = { first: 4, count: 2 };

const failure = (items: string[], known = scenarios): { item: number; message: string } => {
  try {
    rolloutTasks(known, items, seeds);
  } catch (error) {
    expect(error).toBeInstanceOf(RolloutTaskError);
    return { item: (error as RolloutTaskError).item, message: (error as Error).message };
  }
  throw new Error('accepted');
};

describe(rolloutTasks.name, () => {
  it('reads all, scenario ids on the seeds asked for, and explicit scenario@seed, each task once', () => {
    expect(rolloutTasks(scenarios, ['all'], seeds)).toEqual(['intake@4', 'intake@5', 'refund@4', 'refund@5']);
    expect(rolloutTasks(scenarios, ['refund', ' intake@9', 'refund@5'], seeds)).toEqual([
      'refund@4',
      'refund@5',
      'intake@9',
    ]);
  });

  it('names the item that names nothing, by its place', () => {
    expect(failure(['intake', 'nope'])).toEqual({
      item: 1,
      message: 'no scenario "nope"; the stack has intake, refund',
    });
    expect(failure(['intake@x'])).toEqual({
      item: 0,
      message: '"intake@x" is not <scenario>@<seed>; the stack has intake, refund',
    });
    expect(failure(['intake', ''])).toEqual({ item: 1, message: 'an empty item' });
    expect(failure(['all'], [])).toEqual({ item: -1, message: 'the stack has no scenario to play' });
  });
});

describe(scenariosOfTasks.name, () => {
  it('plays up to maxRolloutTasks tasks and refuses more, naming how many were asked for', () => {
    expect(rolloutTasks(['a', 'b'], ['all'], { first: 1, count: maxRolloutTasks / 2 })).toHaveLength(maxRolloutTasks);
    expect(() => rolloutTasks(['a', 'b'], ['all'], { first: 1, count: maxRolloutTasks / 2 + 1 })).toThrow(
      new RolloutTaskError(-1, '10,002 tasks; a rollout plays at most 10,000 (split it, or ask for fewer seeds)'),
    );
  });

  it('lists each scenario once, in order', () => {
    expect(scenariosOfTasks(['b@1', 'a@2', 'b@2'])).toEqual(['b', 'a']);
  });
});
