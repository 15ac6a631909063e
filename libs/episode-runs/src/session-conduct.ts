import type { AgentSession, ReferenceAgent } from '@libs/reference-agents';

/**
 * What the runner learns about an episode through the agent's session, to attribute how it ended: the agent's own
 * faults (graded as its failure) and failures that are Mirror's (the episode is left ungraded).
 */
export interface SessionConduct {
  /** The agent was told the episode ended: `finish` returned, or `wait` said it was finished. */
  ended: boolean;
  agentFaults: string[];
  infrastructureFaults: string[];
}

/** A call the session refused because the episode had ended: the agent's fault, never sent to the twins. */
export class EpisodeEndedError extends Error {}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** No HTTP answer at all (fetch's own failure): the gateway is down, which no agent call can cause. */
const unreachable = (error: unknown): boolean => error instanceof TypeError && error.message === 'fetch failed';

/**
 * The session an agent gets, guarded: after it was told the episode ended, every call to a twin is refused and
 * counted as its fault; a `wait` for a nonsense number of days is refused (the agent's error), a long one is cut to
 * the horizon (no business time lies beyond it); a twin that cannot be reached or a workflow update that fails is
 * Mirror's failure, recorded even when the agent catches the error.
 */
export const guardSession = (
  session: AgentSession,
  limits: { maxWaitBusinessDays: number },
): { session: AgentSession; conduct: SessionConduct } => {
  const conduct: SessionConduct = { ended: false, agentFaults: [], infrastructureFaults: [] };
  const twinCall = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    if (conduct.ended) {
      const fault = `${what} after the episode ended`;
      conduct.agentFaults.push(fault);
      throw new EpisodeEndedError(`${fault}: the twins take no more calls from this session`);
    }
    try {
      return await call();
    } catch (error) {
      if (unreachable(error)) {
        conduct.infrastructureFaults.push(`${what}: the twins could not be reached (${messageOf(error)})`);
      }
      throw error;
    }
  };
  const workflowUpdate = async <T>(what: string, update: () => Promise<T>): Promise<T> => {
    try {
      return await update();
    } catch (error) {
      conduct.infrastructureFaults.push(`${what}: ${messageOf(error)}`);
      throw error;
    }
  };
  const guarded: AgentSession = {
    brief: session.brief,
    identity: session.identity,
    endpoints: session.endpoints,
    ...(session.purchase ? { purchase: session.purchase } : {}),
    now: () => session.now(),
    mail: (path, init) =>
      twinCall(`mail ${init?.method ?? (init?.body === undefined ? 'GET' : 'POST')} ${path}`, () =>
        session.mail(path, init),
      ),
    slack: (method, args) => twinCall(`slack ${method}`, () => session.slack(method, args)),
    erp: (path, init) =>
      twinCall(`erp ${init?.method ?? (init?.body === undefined ? 'GET' : 'POST')} ${path}`, () =>
        session.erp(path, init),
      ),
    wait: async (businessDays?: number) => {
      if (
        businessDays !== undefined &&
        !(typeof businessDays === 'number' && businessDays >= 0 && businessDays < Infinity)
      ) {
        throw new RangeError(`wait(businessDays) takes a number of business days from 0, not ${String(businessDays)}`);
      }
      const days = businessDays === undefined ? undefined : Math.min(businessDays, limits.maxWaitBusinessDays);
      const waited = await workflowUpdate('wait', () => session.wait(days));
      conduct.ended ||= waited.finished;
      return waited;
    },
    finish: async () => {
      const outcome = await workflowUpdate('finish', () => session.finish());
      conduct.ended = true;
      return outcome;
    },
  };
  return { session: guarded, conduct };
};

/**
 * Runs the agent until it returns or throws, and returns its error's message if it threw. An agent still running
 * `graceMs` after its episode's workflow ended (it ignored the end) is left behind, its session closed, and that is
 * its fault: a run never hangs on an agent.
 */
export const runAgent = async (
  agent: ReferenceAgent,
  session: AgentSession,
  conduct: SessionConduct,
  workflowEnded: Promise<boolean>,
  graceMs: number,
): Promise<string | undefined> => {
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const running = Promise.resolve()
    .then(() => agent.run(session))
    .then(
      () => undefined,
      (error: unknown) => messageOf(error),
    );
  const abandoned = workflowEnded.then(
    (ended) =>
      new Promise<'abandoned'>((resolve) => {
        if (ended && !settled) {
          timer = setTimeout(() => resolve('abandoned'), graceMs);
          timer.unref();
        }
      }),
  );
  try {
    const first = await Promise.race([running, abandoned]);
    if (first === 'abandoned') {
      conduct.ended = true;
      conduct.agentFaults.push(`the agent was still running ${graceMs / 1000} s after the episode ended`);
      return undefined;
    }
    return first;
  } finally {
    settled = true;
    clearTimeout(timer);
  }
};
