import { WorkflowHandle, WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';

import { settledUpdate } from './settled-update';

/** A handle whose update calls answer as scripted: an error to throw, or a value. */
const scripted = (answers: (Error | string)[]) => {
  const calls: { name: string; updateId?: string; args: unknown[] }[] = [];
  const handle = {
    executeUpdate: (name: string, options: { args: unknown[]; updateId?: string }) => {
      calls.push({ name, updateId: options.updateId, args: options.args });
      const answer = answers.shift();
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  } as unknown as WorkflowHandle;
  return { handle, calls };
};

const deadline = () => new WorkflowUpdateRPCTimeoutOrCancelledError('context deadline exceeded');

describe('settledUpdate', () => {
  it('asks again with the same update id when the call runs out of time, so the update happens once', async () => {
    const { handle, calls } = scripted([deadline(), deadline(), 'done']);
    await expect(
      settledUpdate((updateId) =>
        handle.executeUpdate<unknown, [unknown]>('wait', { args: [{ businessDays: 1 }], updateId }),
      ),
    ).resolves.toBe('done');
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.updateId)).size).toBe(1);
    expect(calls[0].updateId).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls.every((c) => c.name === 'wait' && JSON.stringify(c.args) === '[{"businessDays":1}]')).toBe(true);
  });

  it('gives each update an id of its own', async () => {
    const { handle, calls } = scripted(['a', 'b']);
    await settledUpdate((updateId) => handle.executeUpdate<unknown, []>('ready', { args: [], updateId }));
    await settledUpdate((updateId) => handle.executeUpdate<unknown, []>('ready', { args: [], updateId }));
    expect(calls[0].updateId).not.toBe(calls[1].updateId);
  });

  it('passes every other failure on at once', async () => {
    const { handle, calls } = scripted([new WorkflowNotFoundError('ended', 'wf', undefined), 'never']);
    await expect(
      settledUpdate((updateId) => handle.executeUpdate<unknown, []>('finish', { args: [], updateId })),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(calls).toHaveLength(1);
  });

  it('gives up after a bounded number of asks', async () => {
    const { handle, calls } = scripted(Array.from({ length: 30 }, deadline));
    await expect(
      settledUpdate((updateId) => handle.executeUpdate<unknown, []>('wait', { args: [], updateId })),
    ).rejects.toBeInstanceOf(WorkflowUpdateRPCTimeoutOrCancelledError);
    expect(calls).toHaveLength(20);
  });
});
