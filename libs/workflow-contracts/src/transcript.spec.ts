import type { SignalledEvent } from './episode-workflow';
import { actorOf, addressedTo, conversationWith, transcriptOf } from './transcript';

const agent = new Set(['E1042', 'sam.lee@buyer.example', 'U0SAM']);
const event = (name: string, data: Record<string, unknown>, seq = 1): SignalledEvent => ({
  seq,
  at: '2026-06-01T09:00:00.000Z',
  name,
  service: name.split('.')[0],
  data,
});

describe(addressedTo.name, () => {
  it('tells the agent of mail to it or copied to it, in any case, and of messages naming it', () => {
    expect(addressedTo(event('email.sent', { from: 'a@x.example', to: ['Sam.Lee@buyer.example'] }), agent)).toBe(true);
    expect(
      addressedTo(
        event('email.sent', { from: 'a@x.example', to: ['b@x.example'], cc: ['sam.lee@buyer.example'] }),
        agent,
      ),
    ).toBe(true);
    expect(
      addressedTo(event('slack.message.posted', { channel: 'C1', user: 'U0ANA', text: 'hi <@U0SAM>' }), agent),
    ).toBe(true);
    expect(addressedTo(event('erp.po.assigned', { po: 'PO-1', assignee: 'E1042' }), agent)).toBe(true);
  });

  // Mail between other people, and posts that do not name it, are not the agent's to read through a wait.
  it('does not tell it of mail between others, posts not naming it, or ids that merely contain its own', () => {
    expect(
      addressedTo(event('email.sent', { from: 'a@x.example', to: ['b@x.example'], subject: 'Refund' }), agent),
    ).toBe(false);
    expect(addressedTo(event('email.sent', { from: 'a@x.example', to: ['xsam.lee@buyer.example'] }), agent)).toBe(
      false,
    );
    expect(
      addressedTo(event('slack.message.posted', { channel: 'C1', user: 'U0ANA', text: 'U0SAMPLE ready' }), agent),
    ).toBe(false);
    expect(addressedTo(event('erp.po.approved', { po: 'PO-E10421', by: 'E2001' }), agent)).toBe(false);
  });

  it('tells it of what is said in a conversation opened with it, though the message does not name it', () => {
    const opened = event('slack.dm.opened', { channel: 'D9', users: ['U0ANA', 'U0SAM'] });
    expect(conversationWith(opened, agent)).toBe('D9');
    expect(conversationWith(event('slack.dm.opened', { channel: 'D8', users: ['U0ANA', 'U0BOB'] }), agent)).toBe(
      undefined,
    );
    // A mention in a channel names the agent but opens nothing: later posts there are not addressed to it.
    expect(conversationWith(event('slack.message.posted', { channel: 'C1', text: '<@U0SAM>' }), agent)).toBe(undefined);
    const said = event('slack.message.posted', { channel: 'D9', user: 'U0ANA', text: 'the code is 4711' });
    expect(addressedTo(said, agent)).toBe(false);
    expect(addressedTo(said, agent, new Set(['D9']))).toBe(true);
  });
});

describe(transcriptOf.name, () => {
  it('tells each event with who did it: the agent by any of its identities, others by the first party named', () => {
    const story = transcriptOf(
      [
        event('email.sent', { from: 'sam.lee@buyer.example', to: ['q@supplier.example'], subject: 'Quote' }, 1),
        event('slack.message.posted', { channel: 'C1', user: 'U0ANA', text: 'done' }, 2),
      ],
      agent,
    );
    expect(story).toEqual([
      {
        at: '2026-06-01T09:00:00.000Z',
        actor: 'agent',
        kind: 'email.sent',
        seq: 1,
        summary: 'mail "Quote" from sam.lee@buyer.example to q@supplier.example',
      },
      {
        at: '2026-06-01T09:00:00.000Z',
        actor: 'U0ANA',
        kind: 'slack.message.posted',
        seq: 2,
        summary: 'Slack C1: done',
      },
    ]);
    expect(actorOf(event('erp.po.approved', { po: 'PO-1' }), agent)).toBe('erp');
  });
});
