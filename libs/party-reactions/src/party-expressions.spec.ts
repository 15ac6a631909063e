import {
  evaluateExpression,
  expressionProblem,
  fillBody,
  fillTemplate,
  useBusinessCalendar,
} from './party-expressions';
import { answerFrom } from './responder-answer';

describe(fillTemplate.name, () => {
  const context = { refund_limit: 200, event: { data: { subject: 'Invoice 42', amount: 250.5, to: ['a@x.example'] } } };

  it('fills each {{ }} with its CEL value as text', () => {
    expect(fillTemplate('Re: {{event.data.subject}} over {{refund_limit}}', context)).toBe('Re: Invoice 42 over 200');
  });

  it('keeps a whole-expression string’s type in a body, and fills nested strings', () => {
    expect(fillBody({ amount: '{{event.data.amount}}', note: ['to {{event.data.to}}'], n: 3 }, context)).toEqual({
      amount: 250.5,
      note: ['to a@x.example'],
      n: 3,
    });
  });

  it('encodes a path’s values when asked, so a value cannot add segments', () => {
    const hostile = { event: { data: { id: '1/../../admin?x=1' } } };
    expect(fillTemplate('/refunds/{{event.data.id}}', hostile, encodeURIComponent)).toBe(
      '/refunds/1%2F..%2F..%2Fadmin%3Fx%3D1',
    );
  });

  it('refuses a name the context does not have instead of writing it empty', () => {
    expect(() => fillTemplate('{{nothing_here}}', context)).toThrow(/nothing_here/);
  });
});

describe(expressionProblem.name, () => {
  it('accepts a condition over the event and known values', () => {
    expect(expressionProblem('event.data.amount > refund_limit', ['refund_limit'])).toBeUndefined();
  });

  it('names what does not parse and what is unknown', () => {
    expect(expressionProblem('event.data.amount >', [])).toMatch(/cannot read/);
    expect(expressionProblem('event.data.amount > refund_limt', ['refund_limit'])).toMatch(/refund_limt/);
  });
});

describe(answerFrom.name, () => {
  const knows = { invoice_number: 'INV-2041', amount_paid: '412.50 EUR' };

  it('answers each fact the question names, and only those', () => {
    expect(answerFrom(knows, 'Could you send me the invoice number?')).toEqual({
      text: 'The invoice number is INV-2041.',
      facts: ['invoice_number'],
    });
  });

  it('says what it can answer when the question names nothing it knows, giving away no value', () => {
    const { text, facts } = answerFrom(knows, 'How are you?');
    expect(facts).toEqual([]);
    expect(text).toContain('invoice number');
    expect(text).not.toContain('INV-2041');
  });
});

describe('business_days_between', () => {
  const day = 86_400_000;
  // Calendar days stand in for business days: what is tested is how the moments are read, not the office calendar.
  useBusinessCalendar({
    addBusinessDays: (ms, days) => ms + days * day,
    businessDaysBetween: (from, to) => Math.floor((to - from) / day),
  });

  it('counts a bare date as the whole of its day: a date n days on is n days, whatever the hour it was asked', () => {
    const order = { event: { at: '2026-06-02T15:30:00Z' }, order: { delivery_date: '2026-06-06' } };
    expect(evaluateExpression('business_days_between(event.at, order.delivery_date)', order)).toBe(4);
    expect(evaluateExpression('business_days_between(event.at, "2026-06-03T15:00:00Z")', order)).toBe(0);
  });

  it('is checked like any function at ingest', () => {
    expect(expressionProblem('business_days_between(event.at, order.delivery_date)', ['order'])).toBeUndefined();
  });
});
