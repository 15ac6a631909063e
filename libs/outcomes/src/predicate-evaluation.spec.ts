import { instantiate, validateScenario } from '@libs/scenarios';
import { synthesizeCompany } from '@libs/synthetic-data';

import { judgeMilestones, judgeOutcome } from './outcome-judge';
import type { EpisodeRecords, JudgedLogEntry, OutcomeSources } from './outcome-sources';
import { evaluatePredicates } from './predicate-evaluation';

/** Records and a log held in memory, as the engine or the gateway's operator routes would give them. */
const recordsOf = (
  tables: Record<string, Record<string, unknown>[]>,
  log: JudgedLogEntry[] = [],
  now = '2026-06-05T12:00:00.000Z',
): EpisodeRecords & { read: string[] } => {
  const read: string[] = [];
  return {
    read,
    tables: () => Promise.resolve(Object.keys(tables)),
    records: (table) => {
      read.push(table);
      return Promise.resolve(tables[table]);
    },
    log: () => Promise.resolve(log),
    now: () => Promise.resolve(now),
  };
};

const agent = { employeeId: 'E0001', email: 'agent@clinic.example', slackUser: 'U0001' };
// Monday 1 June 2026, 09:00: two business days run to Wednesday's close.
const startAt = '2026-06-01T09:00:00.000Z';

const context = {
  services: ['helpdesk', 'email'],
  files: new Set<string>(),
  tables: { helpdesk: { tickets: ['id', 'status', 'refund', 'requester_email'] }, email: { messages: null } },
};

const scenario = validateScenario(
  {
    id: 'dispute',
    title: 'Invoice dispute',
    variables: { refund_cap: 200 },
    hidden: {
      patient_email: { identifier: 'pat@example.org' },
      invoice_total: { money: 480, currency: 'EUR' },
      visit: { date: '2026-05-28' },
    },
    task: { goal: 'Answer the dispute', tools: ['helpdesk', 'email'] },
    parties: { noise: { persona: 'background-traffic', channels: ['general'], messages: 0 } },
    success: [
      {
        kind: 'predicate',
        when: 'services.helpdesk.tickets.exists(t, t.status == "solved" && t.refund <= refund_cap && t.requester_email == patient_email)',
        description: 'the patient’s ticket is solved within the refund cap',
      },
    ],
    milestones: {
      replied_in_time:
        'events.exists(e, e.type == "email.sent" && e.actor == agent.id && within_business_days(e.at, start, 2))',
      refund_noted: 'services.helpdesk.tickets.exists(t, t.refund != null)',
    },
    horizon: { max_agent_actions: 30, business_days: 5 },
  },
  context,
);
const instance = instantiate(scenario.scenario!, 1, synthesizeCompany(0));
const subject = { instance, agent, startAt };
const noErp: OutcomeSources['erp'] = {
  purchaseOrders: () => Promise.reject(new Error('a predicate scenario reads no ERP')),
  quotes: () => Promise.reject(new Error('a predicate scenario reads no ERP')),
};

const ticket = (fields: Record<string, unknown>) => ({ id: 'T1', requester_email: 'pat@example.org', ...fields });
const sent = (seq: number, at: string, actor = agent.employeeId): JudgedLogEntry => ({
  seq,
  at,
  actor,
  event: { type: 'domain', name: 'email.sent', service: 'email', data: { subject: 'Your invoice' } },
});

describe(evaluatePredicates.name, () => {
  it('sees the values (money, dates, identifiers), the agent, the clock and the log', async () => {
    const records = recordsOf({ 'helpdesk/tickets': [] }, [sent(3, '2026-06-02T10:00:00.000Z')]);
    const verdicts = await evaluatePredicates(records, subject, {
      money: 'invoice_total.amount == 480.0 && invoice_total.currency == "EUR"',
      date: 'visit < start && business_days_between(visit, start) == 2.0',
      text: 'patient_email.endsWith("@example.org") && refund_cap == 200',
      agent: 'agent.email == "agent@clinic.example" && agent.slack_user == "U0001"',
      clock: 'now > start && add_business_days(start, 4) < now + duration("1h")',
      log: 'events.size() == 1 && events[0].service == "email" && events[0].data.subject == "Your invoice"',
    });
    expect(verdicts).toEqual({
      money: { met: true },
      date: { met: true },
      text: { met: true },
      agent: { met: true },
      clock: { met: true },
      log: { met: true },
    });
    // Only what a predicate names is read: none of these named a table.
    expect(records.read).toEqual([]);
  });

  it.each([
    ['on the second business day, before its close', '2026-06-03T16:59:00.000Z', true],
    ['on the third business day', '2026-06-04T09:30:00.000Z', false],
    ['over a weekend that does not count', '2026-06-08T10:00:00.000Z', false],
  ])('judges "within 2 business days" %s', async (_name, at, met) => {
    const verdicts = await evaluatePredicates(recordsOf({}, [sent(1, at)]), subject, {
      within: 'events.exists(e, within_business_days(e.at, start, 2))',
    });
    expect(verdicts.within.met).toBe(met);
  });

  it('counts business days between strings and timestamps on the office calendar', async () => {
    const verdicts = await evaluatePredicates(recordsOf({}), subject, {
      friday_to_monday: 'business_days_between("2026-06-05T10:00:00Z", "2026-06-08T10:00:00Z") == 1.0',
      a_week: 'business_days_between(start, timestamp("2026-06-08T09:00:00Z")) == 5.0',
      record_dates: 'within_business_days("2026-06-02", start, 1)',
    });
    expect(verdicts).toEqual({
      friday_to_monday: { met: true },
      a_week: { met: true },
      record_dates: { met: true },
    });
  });

  it('reads record events with their table and record id, and refusals with their service', async () => {
    const log: JudgedLogEntry[] = [
      {
        seq: 1,
        at: '2026-06-01T10:00:00.000Z',
        actor: 'E0001',
        event: { type: 'record.updated', table: 'helpdesk/tickets', id: 'T1', record: { status: 'solved' } },
      },
      {
        seq: 2,
        at: '2026-06-01T10:00:01.000Z',
        actor: 'E0001',
        event: {
          type: 'operation.refused',
          service: 'helpdesk',
          operationId: 'deleteTicket',
          status: 403,
          reason: 'no',
        },
      },
    ];
    const verdicts = await evaluatePredicates(recordsOf({}, log), subject, {
      changed:
        'events.exists(e, e.type == "record.updated" && e.service == "helpdesk" && e.table == "tickets" && e.record_id == "T1" && e.data.status == "solved")',
      refused: 'events.exists(e, e.type == "operation.refused" && e.service == "helpdesk" && e.data.status == 403)',
    });
    expect(verdicts).toEqual({ changed: { met: true }, refused: { met: true } });
  });

  it('reads a record without an optional field as null there, and a missing table as not met, with the reason', async () => {
    const records = recordsOf({ 'helpdesk/tickets': [ticket({ status: 'open' })] });
    const verdicts = await evaluatePredicates(records, subject, {
      absent: 'services.helpdesk.tickets.exists(t, t.refund == null)',
      missing: 'services.helpdesk.invoices.size() > 0',
    });
    expect(verdicts.absent).toEqual({ met: true });
    expect(verdicts.missing).toEqual({ met: false, reason: expect.stringContaining('could not be evaluated') });
    expect(records.read).toEqual(['helpdesk/tickets']);
  });
});

describe(judgeOutcome.name, () => {
  const judge = (tickets: Record<string, unknown>[]) =>
    judgeOutcome({ records: recordsOf({ 'helpdesk/tickets': tickets }), erp: noErp }, { ...subject, currency: 'EUR' });

  it('succeeds when a record the twins hold meets the predicate', async () => {
    await expect(
      judge([ticket({ status: 'open' }), ticket({ id: 'T2', status: 'solved', refund: 150 })]),
    ).resolves.toEqual({
      succeeded: true,
      reason: 'the success terms are met: the patient’s ticket is solved within the refund cap',
      finalTerms: null,
    });
  });

  it.each([
    ['no ticket is solved', [ticket({ status: 'open', refund: 100 })]],
    ['the refund is over the cap', [ticket({ status: 'solved', refund: 250 })]],
    ['the solved ticket is another person’s', [ticket({ status: 'solved', refund: 100, requester_email: 'x@y.org' })]],
  ])('fails when %s', async (_name, tickets) => {
    await expect(judge(tickets)).resolves.toEqual({
      succeeded: false,
      reason: 'the patient’s ticket is solved within the refund cap: the predicate does not hold',
      finalTerms: null,
    });
  });
});

describe(judgeMilestones.name, () => {
  it('judges each named milestone on the records and the log', async () => {
    const records = recordsOf({ 'helpdesk/tickets': [ticket({ status: 'open', refund: 90 })] }, [
      sent(1, '2026-06-04T10:00:00.000Z'),
    ]);
    await expect(judgeMilestones({ records }, subject)).resolves.toEqual({
      replied_in_time: { met: false, reason: 'the predicate does not hold' },
      refund_noted: { met: true },
    });
  });

  it('does not count a mail someone else sent in time', async () => {
    const records = recordsOf({ 'helpdesk/tickets': [] }, [sent(1, '2026-06-02T10:00:00.000Z', 'E0042')]);
    expect((await judgeMilestones({ records }, subject)).replied_in_time.met).toBe(false);
  });
});
