import type { OperatorClient } from '@libs/twin-client';

import { advanceClock, eventsPage, eventsSince } from './episode-admin';

/** An operator whose gateway answers every admin route with `answers`, in order (a fake of the HTTP hop only). */
const operatorAnswering = (...answers: { status: number; body: unknown }[]): OperatorClient =>
  ({ admin: () => Promise.resolve(answers.shift()) }) as unknown as OperatorClient;

const input = { services: { gatewayUrl: 'http://gateway.invalid' }, episodeId: 'e-1' };

describe(eventsSince.name, () => {
  it('returns the events the gateway read', async () => {
    const events = [{ seq: 3, at: '2026-06-01T09:00:00.000Z', name: 'email.sent', service: 'email', data: {} }];
    await expect(
      eventsSince(operatorAnswering({ status: 200, body: { events, lastSeq: 3 } }), { ...input, afterSeq: 2 }),
    ).resolves.toEqual(events);
  });

  // Returned as it was, an error body failed the workflow's task for good ("events is not iterable") and the episode
  // hung; thrown, the activity is retried.
  it('throws when the gateway could not read the log, naming the episode and the answer', async () => {
    const refused = operatorAnswering({ status: 503, body: { error: 'unavailable', message: 'the log is busy' } });
    await expect(eventsSince(refused, { ...input, afterSeq: 0 })).rejects.toThrow(
      'the events of episode e-1 could not be read: 503 the log is busy',
    );
  });
});

describe(eventsPage.name, () => {
  it('returns a page of events, where it ends and whether more follow', async () => {
    const events = [{ seq: 3, at: '2026-06-01T09:00:00.000Z', name: 'email.sent', service: 'email', data: {} }];
    await expect(
      eventsPage(operatorAnswering({ status: 200, body: { events, lastSeq: 4, more: true } }), {
        ...input,
        afterSeq: 2,
      }),
    ).resolves.toEqual({ events, lastSeq: 4, more: true });
  });

  it('throws on an answer that is not a page, naming the episode', async () => {
    const refused = operatorAnswering({ status: 200, body: { events: [] } });
    await expect(eventsPage(refused, { ...input, afterSeq: 0 })).rejects.toThrow(
      'the events of episode e-1 could not be read: 200',
    );
  });
});

describe(advanceClock.name, () => {
  it('falls back to the clock where the agent took it, and throws when even that cannot be read', async () => {
    const kept = operatorAnswering(
      { status: 409, body: {} },
      { status: 200, body: { now: '2026-06-02T09:00:00.000Z' } },
    );
    await expect(advanceClock(kept, { ...input, at: '2026-06-01T09:00:00.000Z' })).resolves.toBe(
      '2026-06-02T09:00:00.000Z',
    );
    const lost = operatorAnswering({ status: 503, body: {} }, { status: 503, body: { message: 'unavailable' } });
    await expect(advanceClock(lost, { ...input, at: '2026-06-01T09:00:00.000Z' })).rejects.toThrow(
      'the clock of episode e-1 could not be read: 503 unavailable',
    );
  });

  it("sends the move's key, so the twins log a retried move once", async () => {
    const sent: unknown[] = [];
    const operator = {
      admin: (_path: string, init: { body?: unknown }) => {
        sent.push(init.body);
        return Promise.resolve({ status: 200, body: { now: '2026-06-01T09:00:00.000Z' } });
      },
    } as unknown as OperatorClient;
    await advanceClock(operator, { ...input, at: '2026-06-01T09:00:00.000Z', key: 'run/7' });
    expect(sent).toEqual([{ at: '2026-06-01T09:00:00.000Z', key: 'run/7' }]);
  });
});
