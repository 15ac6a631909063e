import { ServiceError, WorkflowFailedError } from '@temporalio/client';

import { isTemporalUnreachable, patientWorkflowResult } from './patient-workflow-result';

/** What Temporal's client throws when a call fails at the gRPC level: a ServiceError over grpc-js's own error. */
const grpcFailure = (code: number, details = 'no connection established') =>
  new ServiceError('Failed to get Workflow execution history', {
    cause: Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} }),
  });
const unavailable = 14;
const deadlineExceeded = 4;
const permissionDenied = 7;
const internal = 13;

/** A clock that moves only when the wait sleeps, and a record of what was said. */
const harness = () => {
  let clock = 0;
  const lines: string[] = [];
  const sleeps: number[] = [];
  return {
    lines,
    sleeps,
    options: (patienceMs: number) => ({
      patienceMs,
      retryEveryMs: 5_000,
      log: (line: string) => lines.push(line),
      now: () => clock,
      sleep: (ms: number) => {
        sleeps.push(ms);
        clock += ms;
        return Promise.resolve();
      },
    }),
  };
};

describe('a workflow result asked again while Temporal does not answer', () => {
  it('waits through a server that stops answering and comes back, and says so once', async () => {
    const { lines, sleeps, options } = harness();
    const failures = [grpcFailure(unavailable), grpcFailure(deadlineExceeded, 'Deadline exceeded')];
    let calls = 0;
    const answer = await patientWorkflowResult(() => {
      calls += 1;
      const failure = failures.shift();
      return failure ? Promise.reject(failure) : Promise.resolve({ overall: { episodes: 10 } });
    }, options(60_000));
    expect(answer).toEqual({ overall: { episodes: 10 } });
    expect(calls).toBe(3);
    expect(sleeps).toEqual([5_000, 5_000]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Temporal does not answer .*up to 1 min/);
  });

  it('passes an answer on at once, a failed workflow or a refused call included', async () => {
    for (const refusal of [
      grpcFailure(permissionDenied, 'permission denied'),
      new WorkflowFailedError('Workflow execution failed', undefined, 'NON_RETRYABLE_FAILURE'),
      new Error('the rollout worker stopped'),
    ]) {
      const { lines, sleeps, options } = harness();
      await expect(patientWorkflowResult(() => Promise.reject(refusal), options(60_000))).rejects.toBe(refusal);
      expect(sleeps).toEqual([]);
      expect(lines).toEqual([]);
    }
  });

  it('gives up with the last failure once Temporal has not answered for its patience', async () => {
    const { sleeps, options } = harness();
    const last = grpcFailure(unavailable);
    let calls = 0;
    await expect(
      patientWorkflowResult(() => {
        calls += 1;
        return Promise.reject(calls < 13 ? grpcFailure(unavailable) : last);
      }, options(60_000)),
    ).rejects.toBe(last);
    // Failed at 0 s, asked again every 5 s, the 13th failure is at 60 s: patience spent.
    expect(calls).toBe(13);
    expect(sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(60_000);
  });

  it('stops asking once its caller has stopped waiting', async () => {
    const { sleeps, options } = harness();
    const waiting = new AbortController();
    let calls = 0;
    const failure = grpcFailure(unavailable);
    await expect(
      patientWorkflowResult(
        () => {
          calls += 1;
          if (calls === 2) {
            waiting.abort();
          }
          return Promise.reject(failure);
        },
        { ...options(60_000), signal: waiting.signal },
      ),
    ).rejects.toBe(failure);
    expect(calls).toBe(2);
    expect(sleeps).toEqual([5_000]);
  });

  it('tells the server not answering from an answer by the codes Temporal retries itself', () => {
    expect(isTemporalUnreachable(grpcFailure(unavailable))).toBe(true);
    expect(isTemporalUnreachable(grpcFailure(deadlineExceeded))).toBe(true);
    expect(isTemporalUnreachable(grpcFailure(internal, 'Received RST_STREAM with code 0'))).toBe(true);
    expect(isTemporalUnreachable(grpcFailure(internal, 'Received RST_STREAM with code 2: SSL alert number 42'))).toBe(
      false,
    );
    expect(isTemporalUnreachable(grpcFailure(permissionDenied))).toBe(false);
    expect(isTemporalUnreachable(new ServiceError('refused'))).toBe(false);
    expect(isTemporalUnreachable(new Error('14 UNAVAILABLE'))).toBe(false);
  });
});
