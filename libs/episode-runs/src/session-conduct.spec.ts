import type { AgentSession } from '@libs/reference-agents';
import type { EpisodeOutcome, WaitResult } from '@libs/workflow-contracts';

import { EpisodeEndedError, guardSession, runAgent } from './session-conduct';

/** A session whose twins and workflow answer as told: the guard is what is under test. */
const sessionWith = (answers: { erp?: () => Promise<unknown>; wait?: (days?: number) => Promise<WaitResult> }) => {
  const calls: string[] = [];
  const session = {
    brief: { goal: '', context: '', tools: [] },
    identity: { employeeId: 'E1', name: 'Pat', email: 'pat@x.example', slackUser: 'U1' },
    now: () => '2026-03-02T09:00:00.000Z',
    mail: (path: string) => Promise.resolve(calls.push(`mail ${path}`)),
    slack: (method: string) => Promise.resolve({ ok: calls.push(`slack ${method}`) > 0 }),
    erp: (path: string) => (calls.push(`erp ${path}`), answers.erp ? answers.erp() : Promise.resolve({})),
    wait: (days?: number) => {
      calls.push(`wait ${days}`);
      return answers.wait ? answers.wait(days) : Promise.resolve({ now: '', happened: [], finished: false });
    },
    finish: () => Promise.resolve({ status: 'failed' } as EpisodeOutcome),
  } as unknown as AgentSession;
  return { session, calls };
};

describe('the session an agent gets', () => {
  it('refuses and counts every twin call after it was told the episode ended, even when the agent catches it', async () => {
    const { session, calls } = sessionWith({});
    const guarded = guardSession(session, { maxWaitBusinessDays: 6 });
    await guarded.session.erp('/suppliers');
    await guarded.session.finish();
    await expect(guarded.session.erp('/purchase-orders/PO-1/send', { body: {} })).rejects.toBeInstanceOf(
      EpisodeEndedError,
    );
    await expect(guarded.session.slack('chat.postMessage', {})).rejects.toThrow(/after the episode ended/);
    expect(calls).toEqual(['erp /suppliers']);
    expect(guarded.conduct).toMatchObject({
      ended: true,
      agentFaults: [
        'erp POST /purchase-orders/PO-1/send after the episode ended',
        'slack chat.postMessage after the episode ended',
      ],
      infrastructureFaults: [],
    });
  });

  it('takes a wait that says the episode is finished as the end', async () => {
    const { session } = sessionWith({ wait: () => Promise.resolve({ now: '', happened: [], finished: true }) });
    const guarded = guardSession(session, { maxWaitBusinessDays: 6 });
    await guarded.session.wait();
    await expect(guarded.session.mail('/me/messages')).rejects.toThrow(
      /mail GET \/me\/messages after the episode ended/,
    );
  });

  it('refuses a nonsense wait as the agent’s error and cuts a long one to the horizon', async () => {
    const { session, calls } = sessionWith({});
    const guarded = guardSession(session, { maxWaitBusinessDays: 6 });
    for (const days of [-1, Number.NaN, Infinity, '2' as unknown as number]) {
      await expect(guarded.session.wait(days)).rejects.toBeInstanceOf(RangeError);
    }
    await guarded.session.wait(1e12);
    await guarded.session.wait(0.5);
    expect(calls).toEqual(['wait 6', 'wait 0.5']);
    expect(guarded.conduct).toMatchObject({ agentFaults: [], infrastructureFaults: [] });
  });

  it('records twins that cannot be reached and a failed workflow update as Mirror’s failures, not the agent’s', async () => {
    const { session } = sessionWith({
      erp: () => Promise.reject(new TypeError('fetch failed')),
      wait: () => Promise.reject(new Error('update failed: deadline exceeded')),
    });
    const guarded = guardSession(session, { maxWaitBusinessDays: 6 });
    await expect(guarded.session.erp('/suppliers')).rejects.toThrow('fetch failed');
    await expect(guarded.session.wait()).rejects.toThrow(/deadline exceeded/);
    expect(guarded.conduct.infrastructureFaults).toEqual([
      'erp GET /suppliers: the twins could not be reached (fetch failed)',
      'wait: update failed: deadline exceeded',
    ]);
    expect(guarded.conduct.agentFaults).toEqual([]);
  });

  it('does not count a twin’s refusal (an HTTP answer) as Mirror’s failure', async () => {
    const { session } = sessionWith({ erp: () => Promise.reject(new Error('POST procurement/x: 422 invalid')) });
    const guarded = guardSession(session, { maxWaitBusinessDays: 6 });
    await expect(guarded.session.erp('/x', { body: {} })).rejects.toThrow(/422/);
    expect(guarded.conduct).toMatchObject({ agentFaults: [], infrastructureFaults: [] });
  });
});

describe(runAgent.name, () => {
  const conduct = () => ({ ended: false, agentFaults: [] as string[], infrastructureFaults: [] as string[] });
  const { session } = sessionWith({});

  it('returns the message of an agent that threw, synchronously or not', async () => {
    const throwing = {
      name: 'x',
      run: () => {
        throw new Error('boom');
      },
    };
    expect(await runAgent(throwing, session, conduct(), new Promise(() => {}), 1000)).toBe('boom');
    const rejecting = { name: 'y', run: () => Promise.reject(new Error('later')) };
    expect(await runAgent(rejecting, session, conduct(), new Promise(() => {}), 1000)).toBe('later');
    expect(
      await runAgent({ name: 'z', run: () => Promise.resolve() }, session, conduct(), Promise.resolve(true), 1000),
    ).toBeUndefined();
  });

  it('leaves behind an agent still running after its episode ended, and says so', async () => {
    const seen = conduct();
    const hanging = { name: 'h', run: () => new Promise<void>(() => {}) };
    expect(await runAgent(hanging, session, seen, Promise.resolve(true), 50)).toBeUndefined();
    expect(seen).toMatchObject({
      ended: true,
      agentFaults: ['the agent was still running 0.05 s after the episode ended'],
    });
  });

  it('waits for an agent as long as its episode has not ended', async () => {
    const seen = conduct();
    let finish: () => void = () => undefined;
    const slow = { name: 's', run: () => new Promise<void>((resolve) => (finish = resolve)) };
    const running = runAgent(slow, session, seen, new Promise(() => {}), 10);
    await new Promise((resolve) => setTimeout(resolve, 50));
    finish();
    expect(await running).toBeUndefined();
    expect(seen.agentFaults).toEqual([]);
  });
});
