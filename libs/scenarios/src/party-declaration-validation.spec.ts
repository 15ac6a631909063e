import { synthesizeCompany } from '@libs/synthetic-data';
import type { DeclaredParty } from '@libs/party-reactions';

import { validateScenario } from './scenario-validation';
import { instantiate, partyValueNames } from './task-instance';

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
      channels: ['chat', 'helpdesk'],
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

  it('gives an employee party its id as a value (the actor of what they do), and an outsider none', () => {
    const company = synthesizeCompany(0, { employees: 40, suppliers: 5, items: 50 });
    const instance = instantiate(validateScenario(valid(), context).scenario!, 4, company);
    expect(instance.values.finance_id).toBe((instance.parties.finance as DeclaredParty).employeeId);
    expect(instance.values.customer_id).toBeUndefined();
    expect(partyValueNames(valid() as never)).toEqual(expect.arrayContaining(['finance_id', 'customer_email']));
    expect(partyValueNames(valid() as never)).not.toContain('customer_id');
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

/** A supplier's contact negotiating by mail, recording its positions and honouring orders in the ERP. */
const negotiating = () => ({
  ...valid(),
  task: { goal: 'Buy 10 units from {{seller_organisation}} ({{seller_id}})', tools: ['mail', 'erp'] },
  parties: {
    seller: {
      who: { supplier_contact: { supplier: 1 } },
      channels: ['mail', 'erp'],
      behaviour: [
        {
          negotiator: {
            channel: 'mail',
            issues: {
              unit_price: { says: ['unit price'], opening: 'charged', reservation: 'charged * 0.8' },
              quantity: { says: ['quantity'], opening: 10, reservation: 10, decimals: 0 },
            },
            tactic: 'boulware',
            record: { service: 'erp', path: '/api/v1/quotes', body: { price: '{{terms.unit_price}}' } },
            honours: {
              event: 'erp.po.sent',
              read: { service: 'erp', method: 'GET', path: '/api/v1/purchase-orders/{{event.data.po_id}}' },
              terms: { unit_price: 'order.lines[0].unit_price' },
              accept: { service: 'erp', path: '/api/v1/purchase-orders/{{event.data.po_id}}/acknowledge' },
              refuse: { service: 'erp', path: '/x', body: { reason: '{{reasons}}' } },
            },
          },
        },
      ],
      reactions: [
        {
          when: { state: 'services.helpdesk.refunds.exists(r, r.amount > threshold)' },
          do: { say: { mail: { subject: 'Refund', body: 'Seen it.' } } },
        },
      ],
    },
  },
  success: [{ kind: 'purchase-order', supplier: 'seller', min_status: 'sent', quantity: 1, max_unit_price: 9 }],
});

const withPacks = {
  ...context,
  events: new Set([...context.events, 'erp.po.sent']),
  packKinds: { mail: 'email', chat: 'slack', erp: 'procurement' },
};

type Negotiating = ReturnType<typeof negotiating>;
const negotiator = (s: Negotiating) => s.parties.seller.behaviour[0].negotiator;
const brokenNegotiating = (change: (s: Negotiating) => void) => {
  const scenario = negotiating();
  change(scenario);
  return validateScenario(scenario, withPacks).problems;
};

describe('negotiators, state reactions and channels in validateScenario', () => {
  it('accepts a negotiator and a state reaction, and resolves the supplier contact and its terms', () => {
    const { scenario, problems } = validateScenario(negotiating(), withPacks);
    expect(problems).toEqual([]);
    const company = synthesizeCompany(0, { employees: 40, suppliers: 5, items: 50 });
    const instance = instantiate(scenario!, 3, company);
    const seller = instance.parties.seller as DeclaredParty;
    expect(seller).toMatchObject({
      principal: company.suppliers[1].contacts[0].id,
      organisation: { id: company.suppliers[1].id },
    });
    expect(instance.values).toMatchObject({
      seller_id: company.suppliers[1].id,
      seller_organisation: company.suppliers[1].name,
    });
    expect(seller.reactions.map((r) => [r.id, r.when])).toEqual([
      ['behaviour/0', { question: 'mail' }],
      ['behaviour/0/honours', { event: 'erp.po.sent' }],
      ['reactions/0', { state: 'services.helpdesk.refunds.exists(r, r.amount > threshold)' }],
    ]);
    expect(seller.reactions[0].act).toMatchObject({
      negotiate: {
        tactic: 'boulware',
        patience: 6,
        walkAway: { insulting: 0.6, insults: 2, stalledAfter: 8 },
        issues: { unit_price: { reservation: Number(instance.values.charged) * 0.8 } },
      },
    });
  });

  it.each([
    [
      'a negotiator speaking on a service that is neither mail nor Slack',
      (s: Negotiating) => {
        negotiator(s).channel = 'erp';
      },
      '/parties/seller/behaviour/0/negotiator/channel',
      /speaks on the stack's mail or Slack pack; "erp" is neither/,
    ],
    [
      'an order term that is not one of its issues',
      (s: Negotiating) => {
        (negotiator(s).honours.terms as Record<string, string>).discount = 'order.discount';
      },
      '/parties/seller/behaviour/0/negotiator/honours/terms/discount',
      /"discount" is not an issue of this negotiator/,
    ],
    [
      'a record naming what a negotiator does not have',
      (s: Negotiating) => {
        negotiator(s).record.body.price = '{{terms.unit_price * rate}}';
      },
      '/parties/seller/behaviour/0/negotiator/record/body/price',
      /rate/,
    ],
    [
      'an issue value naming an unknown value',
      (s: Negotiating) => {
        negotiator(s).issues.unit_price.reservation = 'floor_price';
      },
      '/parties/seller/behaviour/0/negotiator/issues/unit_price/reservation',
      /"floor_price" is not defined/,
    ],
    [
      'a state predicate naming a table the stack does not have',
      (s: Negotiating) => {
        s.parties.seller.reactions[0].when.state = 'services.helpdesk.refund.exists(r, r.amount > 1)';
      },
      '/parties/seller/reactions/0/when/state',
      /refund/,
    ],
    [
      'a negotiator on a channel the party does not declare',
      (s: Negotiating) => {
        s.parties.seller.channels = ['erp'];
      },
      '/parties/seller/behaviour/0/negotiator/channel',
      /seller acts on "mail", which is not among its channels \(erp\)/,
    ],
    [
      'a record on a service the party does not declare',
      (s: Negotiating) => {
        s.parties.seller.channels = ['mail'];
      },
      '/parties/seller/behaviour/0/negotiator/record/service',
      /seller acts on "erp", which is not among its channels \(mail\)/,
    ],
    [
      'a message through a pack the party does not declare',
      (s: Negotiating) => {
        (s.parties.seller.reactions[0].do as { say: object }).say = { slack: { channel: '#general', text: 'hi' } };
      },
      '/parties/seller/reactions/0/do/say/slack',
      /seller acts on "chat", which is not among its channels \(mail, erp\)/,
    ],
  ])('refuses %s, naming the field', (_name, change, pointer, message) => {
    const problems = brokenNegotiating(change);
    expect(problems).toContainEqual({ pointer, message: expect.stringMatching(message) as string });
  });
});
