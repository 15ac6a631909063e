import type { StackModel } from '@libs/stack-ingestion';
import { UsageError } from '@cli/cli-output';

import { rolloutAgentName, rolloutTasks } from './rollout-trials';

const model = { scenarios: [{ scenario: { id: 'intake' } }, { scenario: { id: 'refund' } }] } as unknown as StackModel;
const seeds = { first: 4, count: 2 };

describe(rolloutTasks.name, () => {
  it('reads all, scenario ids on the seeds asked for, and explicit scenario@seed, each task once', () => {
    expect(rolloutTasks(model, 'all', seeds)).toEqual(['intake@4', 'intake@5', 'refund@4', 'refund@5']);
    expect(rolloutTasks(model, 'refund, intake@9,refund@5', seeds)).toEqual(['refund@4', 'refund@5', 'intake@9']);
  });

  it('refuses what names no scenario, naming it and the scenarios there are', () => {
    expect(() => rolloutTasks(model, 'intake,nope', seeds)).toThrow(
      new UsageError('--tasks: no scenario "nope"; the stack has intake, refund'),
    );
    expect(() => rolloutTasks(model, 'intake@x', seeds)).toThrow(/"intake@x" is not <scenario>@<seed>/);
    expect(() => rolloutTasks(model, 'intake,', seeds)).toThrow(/has an empty item/);
    expect(() => rolloutTasks({ scenarios: [] } as unknown as StackModel, 'all', seeds)).toThrow(/no scenario to play/);
  });
});

describe(rolloutAgentName.name, () => {
  it('keeps built-in names and makes a module path absolute, for any worker to load', () => {
    expect(rolloutAgentName('trap:grants-editor')).toBe('trap:grants-editor');
    expect(rolloutAgentName('./agents/mine.mjs')).toBe(`${process.cwd()}/agents/mine.mjs`);
  });
});
