import { synthesizeCompany } from '@libs/synthetic-data';

import { validateScenario } from '../scenario-validation';
import { instantiate } from '../task-instance';
import { predicateEnvironment, predicateReads } from './predicate-language';

/** A helpdesk stack: a ticket table with known fields, an invoice table whose fields the spec leaves open. */
const context = {
  services: ['helpdesk', 'email'],
  files: new Set<string>(),
  tables: {
    helpdesk: { tickets: ['id', 'status', 'requester_email', 'refund'], 'patient-invoices': null },
    email: { messages: ['id', 'subject', 'toRecipients'] },
  },
};

const scenario = (change: (s: Record<string, any>) => void = () => undefined) => {
  const s: Record<string, any> = {
    id: 'dispute',
    title: 'Invoice dispute',
    variables: { refund_cap: { int: [150, 250], step: 50 } },
    hidden: {
      diagnosis: { health_condition: 'type 2 diabetes' },
      patient_name: { person_name: 'Ada Lovelace' },
      invoice_total: { money: 'refund_cap * 2', currency: 'EUR' },
      visit: { date: '2026-05-28' },
      channel: { enum: ['mail', 'phone'] },
      budget: 'refund_cap * 3',
    },
    task: { goal: 'Answer the dispute of {{patient_name}}', tools: ['helpdesk', 'email'] },
    parties: { noise: { persona: 'background-traffic', channels: ['general'], messages: 0 } },
    success: [
      {
        kind: 'predicate',
        when: 'services.helpdesk.tickets.exists(t, t.status == "solved" && t.refund <= refund_cap)',
        description: 'the ticket is solved within the refund cap',
      },
    ],
    milestones: {
      replied: 'events.exists(e, e.type == "email.sent" && within_business_days(e.at, start, 2))',
      invoice_read: 'services.helpdesk.patient_invoices.exists(i, i.total == invoice_total.amount)',
    },
    horizon: { max_agent_actions: 30, business_days: 5 },
  };
  change(s);
  return s;
};

const problems = (change: (s: Record<string, any>) => void) => validateScenario(scenario(change), context).problems;

describe('scenario predicates', () => {
  it('accepts predicates over the stack’s tables, the log and typed hidden facts', () => {
    const { scenario: parsed, problems: found } = validateScenario(scenario(), context);
    expect(found).toEqual([]);
    const instance = instantiate(parsed!, 4, synthesizeCompany(0));
    expect(instance.success).toEqual([
      expect.objectContaining({ kind: 'predicate', when: expect.stringContaining('tickets') }),
    ]);
    expect(instance.milestones).toEqual(parsed!.milestones);
    const cap = instance.values.refund_cap as number;
    expect(instance.facts).toEqual({
      diagnosis: { type: 'health_condition', value: 'type 2 diabetes' },
      patient_name: { type: 'person_name', value: 'Ada Lovelace' },
      invoice_total: { type: 'money', amount: cap * 2, currency: 'EUR' },
      visit: { type: 'date', value: '2026-05-28' },
      channel: { type: 'enum', value: expect.stringMatching(/^(mail|phone)$/), options: ['mail', 'phone'] },
      budget: { type: 'number', value: cap * 3 },
    });
    // Number-disclosure rules read the numbers: a bare expression and a money amount, no text.
    expect(instance.hidden).toEqual({ invoice_total: cap * 2, budget: cap * 3 });
    expect(instance.values.patient_name).toBe('Ada Lovelace');
  });

  it.each([
    ['a predicate that does not parse', 'services.helpdesk.tickets.exists(t, t.status ==', 'column 48'],
    ['a service the stack lacks', 'services.crm.tickets.size() > 0', 'No such key: crm'],
    ['a table the service lacks', 'services.helpdesk.ticket.size() > 0', 'column 19: No such key: ticket'],
    ['a field the table lacks', 'services.helpdesk.tickets.exists(t, t.state == "solved")', 'No such key: state'],
    ['a value the scenario lacks', 'services.helpdesk.tickets.exists(t, t.refund <= refund_limit)', 'refund_limit'],
    ['an event field that does not exist', 'events.exists(e, e.kind == "email.sent")', 'No such key: kind'],
    ['a function that does not exist', 'business_hours_between(start, now) < 3.0', 'business_hours_between'],
    ['a table named by an index', 'services.helpdesk["tickets"].size() > 0', 'column 19: name tables as'],
    ['a service named by an index', 'services["helpdesk"].tickets.size() > 0', 'column 10: name tables as'],
    ['a predicate that is not true or false', 'services.helpdesk.tickets.size()', 'must be true or false'],
  ])('refuses %s, pointing at it', (_name, when, message) => {
    expect(
      problems((s) => {
        s.success[0].when = when;
      }),
    ).toEqual([{ pointer: '/success/0/when', message: expect.stringContaining(message) }]);
  });

  it('refuses a milestone naming what does not exist, pointing at the milestone', () => {
    expect(
      problems((s) => {
        s.milestones.replied = 'events.exists(e, e.type == "email.sent" && e.at > deadline)';
      }),
    ).toEqual([{ pointer: '/milestones/replied', message: expect.stringContaining('deadline') }]);
  });

  it('refuses a value that takes a name the predicate context gives', () => {
    expect(
      problems((s) => {
        s.variables.events = 3;
      }),
    ).toEqual([{ pointer: '/variables/events', message: expect.stringContaining('rename the value') }]);
  });

  it.each([
    ['a date that is none', { date: 'next week' }, 'is not a date'],
    ['an enum value outside its options', { enum: ['mail'], value: 'fax' }, 'is not one of mail'],
    ['money without an ISO currency', { money: 10, currency: 'euro' }, 'ISO 4217'],
  ])('refuses %s as a hidden fact', (_name, fact, message) => {
    expect(
      problems((s) => {
        s.hidden.fact = fact;
      }),
    ).toEqual([
      expect.objectContaining({
        pointer: expect.stringMatching(/^\/hidden\/fact/),
        message: expect.stringContaining(message),
      }),
    ]);
  });

  it('reads only the tables a predicate names, and the fields it selects', () => {
    const env = predicateEnvironment({ values: { refund_cap: 'double' }, tables: { helpdesk: null } });
    expect(
      predicateReads(
        env,
        'services.helpdesk.tickets.exists(t, t.refund <= refund_cap) && services.helpdesk.patient_invoices.size() > 0',
      ),
    ).toEqual({
      tables: ['helpdesk.tickets', 'helpdesk.patient_invoices'],
      fields: expect.arrayContaining(['helpdesk', 'tickets', 'refund', 'patient_invoices']),
    });
  });
});
