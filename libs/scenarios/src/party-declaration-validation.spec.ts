import { synthesizeCompany } from '@libs/synthetic-data';
import type { DeclaredParty } from '@libs/party-reactions';

import { validateScenario } from './scenario-validation';
import { instantiate } from './task-instance';

const context = {
  services: ['mail', 'chat', 'erp', 'helpdesk'],
  files: new Set<string>(),
  tables: { helpdesk: { refunds: ['id', 'amount', 'status'], tickets: null }, mail: { messages: null } },
  packs: ['mail', 'chat', 'erp'],
  events: new Set(['email.sent', 'slack.message.posted', 'helpdesk.refunds.created']),
};

/** A scenario whose counterparties are declared as data; each case below breaks one thing of it. */
const valid = () => ({
  id: 'dispute',
  title: 'Dispute',
  world: { company: { employees: 40, suppliers: 5, items: 50 } },
  variables: { invoice_no: { int: [1000, 9999] }, charged: { number: [210, 480], decimals: 2 } },
  derived: { threshold: 200 },
  task: { goal: 'Resolve INV-{{invoice_no}} for {{customer_name}}', tools: ['mail', 'chat'] },
  parties: {
    customer: {
      who: { outside: { domain: 'customers.example' } },
      knows: { payment_date: '2026-02-{{10 + invoice_no % 9}}' },
      channels: ['mail'],
      behaviour: [
        {
          requester: {
            do: { say: { mail: { subject: 'INV-{{invoice_no}}', body: 'I paid {{charged}} twice. {{party.name}}' } } },
          },
        },
        { responder: { channel: 'mail' } },
      ],
    },
    finance: {
      who: { employee: { role: 'finance' } },
      channels: ['chat'],
      behaviour: [
        {
          approver: {
            watch: { event: 'helpdesk.refunds.created', amount: 'event.data.record.amount' },
            over: 'threshold',
            limit: 1000,
            say: { slack: { channel: '#finance', text: 'Refund {{review.decision}}' } },
            record: {
              service: 'helpdesk',
              path: '/refunds/{{event.data.id}}/decision',
              body: { decision: '{{review.decision}}' },
            },
          },
        },
      ],
      reactions: [
        {
          when: {
            event: 'slack.message.posted',
            where: 'event.actor == "agent" && event.data.text.contains("refund")',
          },
          after: { business_hours: 2 },
          do: { say: { slack: { channel: '{{event.data.channel}}', text: 'Approved {{charged}}', thread: true } } },
        },
      ],
    },
    supplier: {
      persona: 'supplier-negotiator',
      supplier: 0,
      strategy: 'linear',
      opening_price: 10,
      reservation_price: 8,
    },
  },
  success: [{ kind: 'purchase-order', supplier: 'supplier', min_status: 'sent', quantity: 1, max_unit_price: 9 }],
  horizon: { max_agent_actions: 40, business_days: 5 },
});

type Scenario = ReturnType<typeof valid>;
const broken = (change: (s: Scenario) => void) => {
  const scenario = valid();
  change(scenario);
  return validateScenario(scenario, context).problems;
};

describe('declared parties in validateScenario', () => {
  it('accepts them, and resolves each party the same for the same seed', () => {
    const { scenario, problems } = validateScenario(valid(), context);
    expect(problems).toEqual([]);
    const company = synthesizeCompany(0, { employees: 40, suppliers: 5, items: 50 });
    const customer = instantiate(scenario!, 4, company).parties.customer as DeclaredParty;
    expect(instantiate(scenario!, 4, company).parties.customer).toEqual(customer);
    expect(customer.email).toMatch(/@customers\.example$/);
    expect(customer.employeeId).toBeUndefined();
    expect(customer.knows.payment_date).toMatch(/^2026-02-1\d$/);
    expect(customer.reactions.map((r) => r.when)).toEqual([{ start: true }, { question: 'mail' }]);
    const finance = instantiate(scenario!, 4, company).parties.finance as DeclaredParty;
    expect(company.employees.find((e) => e.id === finance.employeeId)?.role).toBe('finance');
    expect(finance.reactions[0].act).toMatchObject({ review: { over: 200, limit: 1000 } });
  });

  it.each([
    [
      'a reaction naming a service the stack does not have',
      (s: Scenario) => {
        s.parties.finance.behaviour[0].approver.record.service = 'billing';
      },
      '/parties/finance/behaviour/0/approver/record/service',
      /the stack has no service "billing"/,
    ],
    [
      'a watched table its service does not have',
      (s: Scenario) => {
        s.parties.finance.behaviour[0].approver.watch = {
          service: 'helpdesk',
          table: 'refund',
          amount_field: 'amount',
        } as never;
      },
      '/parties/finance/behaviour/0/approver/watch/table',
      /"helpdesk" has no table "refund"; it has refunds, tickets/,
    ],
    [
      'a watched table on a twin pack, which tells its own events instead',
      (s: Scenario) => {
        s.parties.finance.behaviour[0].approver.watch = {
          service: 'mail',
          table: 'messages',
          amount_field: 'size',
        } as never;
      },
      '/parties/finance/behaviour/0/approver/watch/service',
      /"mail" is a twin pack/,
    ],
    [
      'a watched amount field the table does not have',
      (s: Scenario) => {
        s.parties.finance.behaviour[0].approver.watch = {
          service: 'helpdesk',
          table: 'refunds',
          amount_field: 'total',
        } as never;
      },
      '/parties/finance/behaviour/0/approver/watch/amount_field',
      /"helpdesk.refunds" has no field "total"; it has id, amount, status/,
    ],
    [
      'a reaction to an event no twin of the stack records',
      (s: Scenario) => {
        s.parties.finance.reactions[0].when.event = 'slack.message.sent';
      },
      '/parties/finance/reactions/0/when/event',
      /no twin of this stack records "slack.message.sent"/,
    ],
    [
      'a Slack channel the company does not have',
      (s: Scenario) => {
        s.parties.finance.behaviour[0].approver.say.slack.channel = '#refunds';
      },
      '/parties/finance/behaviour/0/approver/say/slack/channel',
      /the company has no Slack channel "#refunds"/,
    ],
    [
      'a channel the stack does not have',
      (s: Scenario) => {
        s.parties.customer.behaviour[1] = { responder: { channel: 'fax' } };
      },
      '/parties/customer/behaviour/1/responder/channel',
      /no service "fax"/,
    ],
    [
      'a condition that does not parse',
      (s: Scenario) => {
        s.parties.finance.reactions[0].when.where = 'event.actor == ';
      },
      '/parties/finance/reactions/0/when/where',
      /cannot read "event.actor == "/,
    ],
    [
      'a condition naming an unknown value',
      (s: Scenario) => {
        s.parties.finance.reactions[0].when.where = 'event.data.amount > treshold';
      },
      '/parties/finance/reactions/0/when/where',
      /treshold/,
    ],
    [
      'a reaction template naming an unknown value',
      (s: Scenario) => {
        s.parties.finance.reactions[0].do.say.slack.text = 'Approved {{charge}}';
      },
      '/parties/finance/reactions/0/do/say/slack/text',
      /charge/,
    ],
    [
      'a body template naming an unknown value',
      (s: Scenario) => {
        s.parties.finance.behaviour[0].approver.record.body.decision = '{{verdict}}';
      },
      '/parties/finance/behaviour/0/approver/record/body/decision',
      /verdict/,
    ],
    [
      'a private fact naming an unknown value',
      (s: Scenario) => {
        s.parties.customer.knows.payment_date = '{{paid_on}}';
      },
      '/parties/customer/knows/payment_date',
      /"paid_on" is not defined/,
    ],
    [
      'an unknown behaviour kind',
      (s: Scenario) => {
        (s.parties.customer.behaviour as unknown[])[1] = { haggler: {} };
      },
      '/parties/customer/behaviour/1/haggler',
      /unknown field "haggler"/,
    ],
  ])('refuses %s, naming the field', (_name, change, pointer, message) => {
    const problems = broken(change);
    expect(problems).toContainEqual({ pointer, message: expect.stringMatching(message) as string });
  });
});
