import { isGrpcDeadlineError, isGrpcServiceError, isRetryableError, ServiceError } from '@temporalio/client';

/**
 * Whether an error from Temporal's client is the server not answering (worth asking again), not an answer: the codes
 * Temporal's own client retries, and a deadline run out. A failed or unknown workflow, a refused call, is an answer.
 */
export const isTemporalUnreachable = (error: unknown): boolean => {
  const cause = error instanceof ServiceError ? error.cause : error;
  return isGrpcDeadlineError(cause) || (isGrpcServiceError(cause) && isRetryableError(cause));
};

export interface PatienceOptions {
  /** How long Temporal may go without answering, from the first failed call, before the wait gives up. */
  patienceMs: number;
  /** Told once when Temporal first does not answer. */
  log: (line: string) => void;
  /** The pause between two attempts while Temporal does not answer. */
  retryEveryMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Once aborted (the caller stopped waiting), a failed attempt is the last: nothing keeps asking in the background. */
  signal?: AbortSignal;
}

/** Thirty minutes: a Temporal cluster's rolling restart or failover is minutes; a dead server is not worth more. */
export const defaultTemporalPatienceMs = 30 * 60_000;

/**
 * A workflow's result, asked again while Temporal does not answer. The workflow, not the caller, owns the work: a
 * server restarting or paused under a long wait is no reason for a command to give up on a rollout still playing.
 * Gives up with the last error once Temporal has not answered for `patienceMs`.
 */
export const patientWorkflowResult = async <T>(result: () => Promise<T>, options: PatienceOptions): Promise<T> => {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const retryEveryMs = options.retryEveryMs ?? 5_000;
  let unreachableSince: number | undefined;
  for (;;) {
    try {
      // A long wait answers only when the workflow ends, so there is no telling here when Temporal came back.
      return await result();
    } catch (error) {
      if (!isTemporalUnreachable(error)) {
        throw error;
      }
      const firstFailure = unreachableSince === undefined;
      unreachableSince ??= now();
      if (options.signal?.aborted || now() - unreachableSince >= options.patienceMs) {
        throw error;
      }
      if (firstFailure) {
        options.log(
          `Temporal does not answer (${(error as Error).message}); asking again for up to ${Math.round(options.patienceMs / 60_000)} min, the workflow goes on meanwhile`,
        );
      }
      await sleep(retryEveryMs);
    }
  }
};
