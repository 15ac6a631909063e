import { ReferenceAgent } from './agent-session';

/** Does nothing and says it is done: every task must fail for it, or the task is broken. */
export const idleAgent: ReferenceAgent = {
  name: 'idle',
  async run(session) {
    await session.finish();
  },
};
