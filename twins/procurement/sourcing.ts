import type { WorldRecord } from '@libs/synthetic-data';
import { EpisodeEvent, isOutcome, PackBehaviour, PackCall } from '@libs/twin-engine';

import {
  as,
  body,
  created,
  domainEvent,
  erpError,
  money,
  toUnitPrice,
  nextNumber,
  notFound,
  ok,
  record,
  updated,
} from './erp-call';

interface Rfq extends WorldRecord {
  id: string;
  title: string;
  status: 'draft' | 'sent' | 'awarded' | 'cancelled';
  supplier_ids: string[];
  lines: {
    line: number;
    item_id: string | null;
    description: string;
    quantity: number;
    unit_price: number;
    amount: number;
  }[];
  awarded_quote_id: string | null;
}

interface Quote extends WorldRecord {
  id: string;
  rfq_id: string;
  supplier_id: string;
  status: 'received' | 'accepted' | 'declined';
  total: number;
}

const rfqOf = (call: PackCall): Rfq | ReturnType<typeof notFound> =>
  record<Rfq>(call, 'rfqs', call.params.rfqId) ?? notFound('request for quotation', call.params.rfqId);

const buyers = ['agent', 'buyer', 'approver', 'executive'] as const;

const createRfq = as([...buyers], (call, user) => {
  const input = body<{
    title: string;
    supplier_ids: string[];
    lines: { item_id?: string; description?: string; quantity: number }[];
    due_date?: string;
    requisition_id?: string;
  }>(call);
  for (const [index, supplierId] of input.supplier_ids.entries()) {
    const supplier = record<{ status: string }>(call, 'suppliers', supplierId);
    if (!supplier) {
      return erpError(422, 'unknown_supplier', `supplier_ids/${index}: no supplier ${supplierId}`);
    }
    if (supplier.status === 'blocked') {
      return erpError(422, 'supplier_blocked', `supplier_ids/${index}: ${supplierId} is blocked`);
    }
  }
  const lines = [];
  for (const [index, line] of input.lines.entries()) {
    const item = record<{ name: string }>(call, 'items', line.item_id);
    if (line.item_id && !item) {
      return erpError(422, 'unknown_item', `lines/${index}/item_id: no catalogue item ${line.item_id}`);
    }
    const description = line.description ?? item?.name;
    if (!description) {
      return erpError(422, 'description_required', `lines/${index}: a line needs an item_id or a description`);
    }
    lines.push({
      line: index + 1,
      item_id: line.item_id ?? null,
      description,
      quantity: line.quantity,
      unit_price: 0,
      amount: 0,
    });
  }
  const id = nextNumber(call, 'rfqs', 'RFQ-');
  const rfq: Rfq = {
    id,
    title: input.title,
    status: 'draft',
    supplier_ids: input.supplier_ids,
    lines,
    due_date: input.due_date ?? null,
    requisition_id: input.requisition_id ?? null,
    awarded_quote_id: null,
    created_by: user.id,
    created_at: call.now,
    sent_at: null,
  };
  return ok(201, rfq, [
    created(call, 'rfqs', id, rfq),
    domainEvent(call, 'erp.rfq.created', { rfq_id: id, title: rfq.title, supplier_ids: rfq.supplier_ids, by: user.id }),
  ]);
});

const sendRfq = as([...buyers], (call, user) => {
  const rfq = rfqOf(call);
  if (isOutcome(rfq)) {
    return rfq;
  }
  if (rfq.status !== 'draft') {
    return erpError(409, 'invalid_transition', `${rfq.id} is ${rfq.status}; send needs it to be draft`);
  }
  const next: Rfq = { ...rfq, status: 'sent', sent_at: call.now };
  return ok(200, next, [
    updated(call, 'rfqs', rfq.id, next),
    domainEvent(call, 'erp.rfq.sent', { rfq_id: rfq.id, supplier_ids: rfq.supplier_ids, by: user.id }),
  ]);
});

/** A quote is recorded by a buyer, or by the supplier itself with a portal token (only for itself). */
const recordQuote = as(['supplier', ...buyers], (call, user) => {
  const rfq = rfqOf(call);
  if (isOutcome(rfq)) {
    return rfq;
  }
  const input = body<{
    supplier_id: string;
    lines: { line: number; unit_price: number; quantity?: number }[];
    delivery_date?: string;
    payment_terms_days?: number;
    valid_until?: string;
  }>(call);
  if (user.role === 'supplier' && user.supplier_id !== input.supplier_id) {
    return erpError(403, 'forbidden', `a ${String(user.supplier_id)} user cannot quote for ${input.supplier_id}`);
  }
  if (rfq.status !== 'sent') {
    return erpError(409, 'invalid_transition', `${rfq.id} is ${rfq.status}; quotes are taken while it is sent`);
  }
  if (!rfq.supplier_ids.includes(input.supplier_id)) {
    return erpError(422, 'supplier_not_invited', `supplier_id: ${input.supplier_id} was not invited to ${rfq.id}`);
  }
  const lines = [];
  for (const [index, quoted] of input.lines.entries()) {
    const asked = rfq.lines.find((l) => l.line === quoted.line);
    if (!asked) {
      return erpError(422, 'unknown_line', `lines/${index}/line: ${rfq.id} has no line ${quoted.line}`);
    }
    const quantity = quoted.quantity ?? asked.quantity;
    lines.push({
      line: asked.line,
      item_id: asked.item_id,
      description: asked.description,
      quantity,
      unit_price: toUnitPrice(quoted.unit_price),
      amount: money(quantity * quoted.unit_price),
    });
  }
  const id = nextNumber(call, 'rfqs.quotes', 'Q-');
  const quote: Quote = {
    id,
    rfq_id: rfq.id,
    supplier_id: input.supplier_id,
    status: 'received',
    lines,
    total: money(lines.reduce((sum, l) => sum + l.amount, 0)),
    currency: call.company.currency,
    delivery_date: input.delivery_date ?? null,
    payment_terms_days: input.payment_terms_days ?? null,
    valid_until: input.valid_until ?? null,
    recorded_by: user.id,
    created_at: call.now,
  };
  return ok(201, quote, [
    created(call, 'rfqs.quotes', id, quote, rfq.id),
    domainEvent(call, 'erp.quote.received', {
      rfq_id: rfq.id,
      quote_id: id,
      supplier_id: quote.supplier_id,
      total: quote.total,
      by: user.id,
    }),
  ]);
});

const awardRfq = as([...buyers], (call, user) => {
  const rfq = rfqOf(call);
  if (isOutcome(rfq)) {
    return rfq;
  }
  if (rfq.status !== 'sent') {
    return erpError(409, 'invalid_transition', `${rfq.id} is ${rfq.status}; award needs it to be sent`);
  }
  const { quote_id: quoteId } = body<{ quote_id: string }>(call);
  const quotes = call.state
    .ids(call.table('rfqs.quotes'), rfq.id)
    .map((id) => record<Quote>(call, 'rfqs.quotes', id) as Quote);
  if (!quotes.some((q) => q.id === quoteId)) {
    return erpError(422, 'unknown_quote', `quote_id: ${rfq.id} has no quote ${quoteId}`);
  }
  const next: Rfq = { ...rfq, status: 'awarded', awarded_quote_id: quoteId };
  const events: EpisodeEvent[] = [updated(call, 'rfqs', rfq.id, next)];
  for (const quote of quotes) {
    events.push(
      updated(call, 'rfqs.quotes', quote.id, { ...quote, status: quote.id === quoteId ? 'accepted' : 'declined' }),
    );
  }
  const winner = quotes.find((q) => q.id === quoteId) as Quote;
  events.push(
    domainEvent(call, 'erp.rfq.awarded', {
      rfq_id: rfq.id,
      quote_id: quoteId,
      supplier_id: winner.supplier_id,
      total: winner.total,
      quotes: quotes.map((q) => ({ quote_id: q.id, supplier_id: q.supplier_id, total: q.total })),
      by: user.id,
    }),
  );
  return ok(200, next, events);
});

export const sourcingBehaviours: Record<string, PackBehaviour> = { createRfq, sendRfq, recordQuote, awardRfq };
