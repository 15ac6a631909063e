import { domainEventsOf, LoggedEvent, logPage, pageOfLog } from './episode-events';

const posted = (seq: number, text = 'ok'): LoggedEvent => ({
  seq,
  at: '2026-06-01T09:00:00.000Z',
  operationId: 'chat.postMessage',
  actor: 'E1',
  event: { type: 'domain', name: 'slack.message.posted', service: 'slack', data: { channel: 'C1', text } },
});

describe(pageOfLog.name, () => {
  it('returns a short log whole', () => {
    const log = [posted(1), posted(2)];
    expect(pageOfLog(log)).toBe(log);
  });

  it('cuts a long log at the page size, and a log of large events by its bytes, in order', () => {
    const many = Array.from({ length: logPage.entries * 3 }, (_, i) => posted(i + 1));
    const page = pageOfLog(many);
    expect(page.map((e) => e.seq)).toEqual(many.slice(0, logPage.entries).map((e) => e.seq));

    const large = Array.from({ length: 40 }, (_, i) => posted(i + 1, 'x'.repeat(20_000)));
    const cut = pageOfLog(large);
    expect(cut.length).toBeGreaterThan(1);
    expect(cut.length).toBeLessThan(large.length);
    expect(JSON.stringify(cut.map((e) => e.event)).length).toBeLessThanOrEqual(logPage.bytes + cut.length);
  });

  // However large one event is, the reader still moves on: an empty page with `more` would read the same page for ever.
  it('always takes at least one entry', () => {
    const huge = [posted(1, 'x'.repeat(logPage.bytes * 2)), posted(2)];
    expect(pageOfLog(huge).map((e) => e.seq)).toEqual([1]);
  });
});

describe(domainEventsOf.name, () => {
  it('keeps domain events with their actor and leaves clock moves out', () => {
    const clock: LoggedEvent = {
      seq: 2,
      at: '2026-06-01T10:00:00.000Z',
      operationId: 'clock',
      event: { type: 'clock.set', at: '2026-06-01T10:00:00.000Z' },
    };
    expect(domainEventsOf([posted(1), clock])).toEqual([
      {
        seq: 1,
        at: '2026-06-01T09:00:00.000Z',
        actor: 'E1',
        name: 'slack.message.posted',
        service: 'slack',
        data: { channel: 'C1', text: 'ok' },
      },
    ]);
  });
});
