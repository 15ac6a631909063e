import { randomUUID } from 'node:crypto';

import { WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';

/** How many times one update is asked for again after its call ran out of time, before the episode gives up. */
const maxAsks = 20;

/**
 * Runs a workflow update to its outcome even when the call that carries it runs out of time. On a busy server an
 * update may not be accepted or finished within one RPC's deadline ("context deadline exceeded"); the update itself
 * is not lost, and asking again with the same update id attaches to it (Temporal deduplicates updates by id within a
 * run), so the agent's `wait` or `finish` happens once, however many calls it takes to hear its answer.
 */
export const settledUpdate = async <Ret>(execute: (updateId: string) => Promise<Ret>): Promise<Ret> => {
  const updateId = randomUUID();
  for (let ask = 1; ; ask++) {
    try {
      return await execute(updateId);
    } catch (error) {
      if (!(error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) || ask >= maxAsks) {
        throw error;
      }
    }
  }
};
