import { DeclaredParty } from './declared-party';
import { matchReactions, ObservedEvent, openingReactions, stateReactions } from './reaction-matching';

const agent = { employeeId: 'E0000', email: 'agent@company.example', slackUser: 'U0' };

const party = (overrides: Partial<DeclaredParty>): DeclaredParty => ({
  persona: 'declared',
  name: 'Dana Reyes',
  email: 'dana.reyes@outside.example',
  goals: [],
  knows: {},
  channels: [],
  reactions: [],
  ...overrides,
});

const event = (overrides: Partial<ObservedEvent>): ObservedEvent => ({
  seq: 7,
  at: '2026-03-02T10:00:00.000Z',
  name: 'slack.message.posted',
  service: 'chat',
  data: { channel: '#approvals', text: 'please approve the refund of 250', ts: '1.2' },
  actor: 'agent',
  ...overrides,
});

describe(matchReactions.name, () => {
  const approver = party({
    employeeId: 'E0007',
    email: 'e7@company.example',
    reactions: [
      {
        id: 'reactions/0',
        when: { event: 'slack.message.posted', where: 'event.actor == "agent" && event.data.channel == approvals' },
        after: { businessHours: 2 },
        act: { say: { slack: { channel: '{{event.data.channel}}', text: 'ok', thread: true } } },
      },
    ],
  });
  const values = { approvals: '#approvals' };

  it('schedules a reaction whose event and condition match, with its delay and a ref unique to the trigger', () => {
    expect(matchReactions(event({}), { finance: approver }, values, agent)).toEqual([
      {
        kind: 'reaction',
        party: 'finance',
        reaction: 'reactions/0',
        delay: { businessHours: 2 },
        ref: 'reactions/0@7',
      },
    ]);
  });

  it('ignores other events, a condition that does not hold, and the party’s own doing', () => {
    expect(matchReactions(event({ name: 'email.sent' }), { finance: approver }, values, agent)).toEqual([]);
    expect(
      matchReactions(event({ data: { channel: '#random', text: 'hi' } }), { finance: approver }, values, agent),
    ).toEqual([]);
    expect(matchReactions(event({ actor: 'E0007' }), { finance: approver }, values, agent)).toEqual([]);
  });

  it('treats a condition that fails on an event (a field it lacks) as not holding', () => {
    const strict = party({
      reactions: [
        { id: 'reactions/0', when: { event: 'x', where: 'event.data.amount > 10' }, after: {}, act: { answer: true } },
      ],
    });
    expect(matchReactions(event({ name: 'x', data: {} }), { p: strict }, {}, agent)).toEqual([]);
  });

  it('answers questions addressed to the party on its channel only', () => {
    const responder = party({
      reactions: [
        { id: 'behaviour/0', when: { question: 'mail' }, after: { businessHours: 1 }, act: { answer: true } },
      ],
    });
    const mail = (to: string[], service = 'mail') =>
      event({
        name: 'email.sent',
        service,
        data: { to, cc: [], subject: 'Invoice', body: 'What is the invoice number?' },
      });
    expect(matchReactions(mail(['Dana.Reyes@outside.example']), { dana: responder }, {}, agent)).toHaveLength(1);
    expect(matchReactions(mail(['someone@else.example']), { dana: responder }, {}, agent)).toEqual([]);
    expect(matchReactions(mail(['dana.reyes@outside.example'], 'other-mail'), { dana: responder }, {}, agent)).toEqual(
      [],
    );
  });

  it('hears its name on Slack only as a word', () => {
    const ed = party({
      name: 'Ed Miller',
      reactions: [{ id: 'behaviour/0', when: { question: 'chat' }, after: {}, act: { answer: true } }],
    });
    const said = (text: string) =>
      matchReactions(event({ data: { channel: 'C1', text, ts: '1.1' } }), { ed }, {}, agent);
    expect(said('The invoice was refunded')).toEqual([]);
    expect(said('Ed, which account?')).toHaveLength(1);
    expect(said('a question for ed miller')).toHaveLength(1);
  });

  it('reviews only amounts over the threshold', () => {
    const reviewer = party({
      employeeId: 'E0009',
      reactions: [
        {
          id: 'behaviour/0',
          when: { event: 'ticket.refund.requested' },
          after: {},
          act: {
            review: {
              amount: 'event.data.amount',
              over: 200,
              limit: 1000,
              say: { slack: { channel: '#a', text: 'x' } },
            },
          },
        },
      ],
    });
    const refund = (amount: number) => event({ name: 'ticket.refund.requested', data: { amount } });
    expect(matchReactions(refund(250), { r: reviewer }, {}, agent)).toHaveLength(1);
    expect(matchReactions(refund(150), { r: reviewer }, {}, agent)).toEqual([]);
  });

  it('leaves built-in personas to their own scheduling', () => {
    expect(matchReactions(event({}), { s: { persona: 'supplier-negotiator' } }, {}, agent)).toEqual([]);
  });
});

describe(openingReactions.name, () => {
  it('returns what declared parties do at the start, in party order', () => {
    const opener = (id: string) =>
      party({
        reactions: [
          {
            id,
            when: { start: true },
            after: { businessHours: 1 },
            act: { do: { service: 's', method: 'POST', path: '/x' } },
          },
        ],
      });
    expect(
      openingReactions({ b: opener('behaviour/0'), a: opener('behaviour/1') }).map((p) => `${p.party} ${p.ref}`),
    ).toEqual(['a behaviour/1@start', 'b behaviour/0@start']);
  });
});

describe(stateReactions.name, () => {
  const watcher = party({
    reactions: [
      {
        id: 'reactions/0',
        when: { state: 'services.erp.purchase_orders.exists(o, o.status == "pending_approval")' },
        after: { businessHours: 1 },
        act: { say: { slack: { channel: '#a', text: 'what is it for?' } } },
      },
      { id: 'reactions/1', when: { event: 'x' }, after: {}, act: { answer: true } },
    ],
  });

  it('lists the reactions on a state with their predicates, each with a ref that makes it fire once', () => {
    expect(stateReactions({ finance: watcher, s: { persona: 'supplier-negotiator' } })).toEqual([
      {
        kind: 'reaction',
        party: 'finance',
        reaction: 'reactions/0',
        delay: { businessHours: 1 },
        ref: 'reactions/0@state',
        predicate: 'services.erp.purchase_orders.exists(o, o.status == "pending_approval")',
      },
    ]);
  });

  it('never fires on an event: a state is judged on the twins’ records, not matched against what happened', () => {
    expect(matchReactions(event({}), { finance: watcher }, {}, agent)).toEqual([]);
  });
});
