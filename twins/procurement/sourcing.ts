import type { WorldRecord } from '@libs/synthetic-data';
import { EpisodeEvent, isOutcome, PackBehaviour, PackCall } from '@libs/twin-engine';

import {
  as,
  body,
  created,
  domainEvent,
  erpError,
  ErpUser,
  money,
  toUnitPrice,
  nextNumber,
  notFound,
  ok,
  record,
  updated,
} from './erp-call';

/** A line of a request for quotation, and of a quote on it: the same goods at a price. */
interface SourcingLine {
  line: number;
  item_id: string | null;
  description: string;
  quantity: number;
  unit_price: number;
  amount: number;
}

interface Rfq extends WorldRecord {
  id: string;
  title: string;
  status: 'draft' | 'sent' | 'awarded' | 'cancelled';
  supplier_ids: string[];
  lines: SourcingLine[];
  awarded_quote_id: string | null;
}

export type QuoteStatus = 'received' | 'accepted' | 'declined' | 'withdrawn';

/** A supplier's offer in writing, in its own hand: what an order to it may be placed on. */
export interface Quote extends WorldRecord {
  id: string;
  rfq_id: string | null;
  supplier_id: string;
  status: QuoteStatus;
  basis: 'offer' | 'acceptance';
  lines: SourcingLine[];
  total: number;
  payment_terms_days: number;
  delivery_days: number;
  submitted_by: string;
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

interface QuoteTerms {
  supplier_id?: string;
  payment_terms_days: number;
  delivery_days: number;
  valid_until?: string;
  basis?: 'offer' | 'acceptance';
  reference?: string;
}

type OfferLine = { line?: number; item_id?: string; description?: string; quantity?: number; unit_price: number };

/**
 * A quote is the supplier's own offer: only its portal users submit one, for their own supplier. A buyer keying in
 * a price a supplier "said" is refused rather than recorded as untrusted: an order may only be placed on what the
 * supplier put in writing itself, and a record nobody may trust is one a reader would trust by mistake.
 */
const submit = (
  call: PackCall,
  user: ErpUser,
  rfqId: string | undefined,
  input: QuoteTerms & { lines: OfferLine[] },
) => {
  if (user.role !== 'supplier' || !user.supplier_id) {
    return erpError(
      403,
      'quote_not_from_supplier',
      'quotes are submitted by the supplier through its portal; a buyer cannot record one on its behalf',
    );
  }
  const supplierId = user.supplier_id;
  if (input.supplier_id !== undefined && input.supplier_id !== supplierId) {
    return erpError(403, 'forbidden', `supplier_id: a ${supplierId} user cannot quote for ${input.supplier_id}`);
  }
  const rfq = rfqId === undefined ? undefined : record<Rfq>(call, 'rfqs', rfqId);
  if (rfqId !== undefined && (!rfq || !rfq.supplier_ids.includes(supplierId))) {
    // An RFQ the supplier was not invited to does not exist for it.
    return notFound('request for quotation', rfqId);
  }
  if (rfq && rfq.status !== 'sent') {
    return erpError(409, 'invalid_transition', `${rfq.id} is ${rfq.status}; quotes are taken while it is sent`);
  }
  const lines = [];
  for (const [index, quoted] of input.lines.entries()) {
    const asked = rfq ? rfq.lines.find((l) => l.line === quoted.line) : undefined;
    if (rfq && !asked) {
      return erpError(422, 'unknown_line', `lines/${index}/line: ${rfq.id} has no line ${String(quoted.line)}`);
    }
    const item = record<{ name: string; supplier_id: string }>(call, 'items', quoted.item_id);
    if (quoted.item_id && (!item || item.supplier_id !== supplierId)) {
      return erpError(
        422,
        'unknown_item',
        `lines/${index}/item_id: ${supplierId} has no catalogue item ${quoted.item_id}`,
      );
    }
    const quantity = quoted.quantity ?? asked?.quantity;
    const description = asked?.description ?? quoted.description ?? item?.name;
    if (quantity === undefined || !description) {
      return erpError(
        422,
        'line_incomplete',
        `lines/${index}: a quote line needs a quantity and a description or item`,
      );
    }
    lines.push({
      line: asked?.line ?? index + 1,
      item_id: asked?.item_id ?? quoted.item_id ?? null,
      description,
      quantity,
      unit_price: toUnitPrice(quoted.unit_price),
      amount: money(quantity * quoted.unit_price),
    });
  }
  const id = nextNumber(call, 'quotes', 'Q-');
  const quote: Quote = {
    id,
    rfq_id: rfq?.id ?? null,
    supplier_id: supplierId,
    status: 'received',
    basis: input.basis ?? 'offer',
    lines,
    total: money(lines.reduce((sum, l) => sum + l.amount, 0)),
    currency: call.company.currency,
    payment_terms_days: input.payment_terms_days,
    delivery_days: input.delivery_days,
    valid_until: input.valid_until ?? null,
    reference: input.reference ?? null,
    submitted_by: user.id,
    created_at: call.now,
  };
  return ok(201, quote, [
    created(call, 'quotes', id, quote),
    domainEvent(call, 'erp.quote.received', {
      rfq_id: quote.rfq_id,
      quote_id: id,
      supplier_id: supplierId,
      total: quote.total,
      basis: quote.basis,
      by: user.id,
    }),
  ]);
};

const recordQuote = as(['supplier', ...buyers], (call, user) => {
  const rfq = rfqOf(call);
  return isOutcome(rfq) ? rfq : submit(call, user, rfq.id, body<QuoteTerms & { lines: OfferLine[] }>(call));
});

const submitQuote = as(['supplier', ...buyers], (call, user) => {
  const input = body<QuoteTerms & { rfq_id?: string; lines: OfferLine[] }>(call);
  return submit(call, user, input.rfq_id, input);
});

const quotesOf = (call: PackCall, rfqId: string): Quote[] =>
  call.state
    .ids(call.table('quotes'))
    .map((id) => record<Quote>(call, 'quotes', id) as Quote)
    .filter((quote) => quote.rfq_id === rfqId);

/** A request's quotes: buyers see them all, an invited supplier its own; others do not know the request. */
const listRfqQuotes = as(['supplier', ...buyers, 'finance', 'requester'], (call, user) => {
  const rfq = rfqOf(call);
  if (isOutcome(rfq)) {
    return rfq;
  }
  if (user.role === 'supplier' && !rfq.supplier_ids.includes(String(user.supplier_id))) {
    return notFound('request for quotation', rfq.id);
  }
  const quotes = quotesOf(call, rfq.id).filter((q) => user.role !== 'supplier' || q.supplier_id === user.supplier_id);
  return ok(200, { data: quotes, next_cursor: null }, []);
});

/** The supplier takes back an offer it no longer stands by; orders placed on it afterwards are declined. */
const withdrawQuote = as(['supplier', ...buyers], (call, user) => {
  const quote = record<Quote>(call, 'quotes', call.params.quoteId);
  if (!quote || (user.role === 'supplier' && quote.supplier_id !== user.supplier_id)) {
    return notFound('quote', call.params.quoteId);
  }
  if (user.role !== 'supplier') {
    return erpError(403, 'forbidden', `only ${quote.supplier_id} can withdraw its quote ${quote.id}`);
  }
  if (quote.status !== 'received') {
    return erpError(409, 'invalid_transition', `${quote.id} is ${quote.status}; withdraw needs it to be received`);
  }
  const next: Quote = { ...quote, status: 'withdrawn', withdrawn_at: call.now };
  return ok(200, next, [
    updated(call, 'quotes', quote.id, next),
    domainEvent(call, 'erp.quote.withdrawn', { quote_id: quote.id, supplier_id: quote.supplier_id, by: user.id }),
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
  const quotes = quotesOf(call, rfq.id).filter((q) => q.status !== 'withdrawn');
  if (!quotes.some((q) => q.id === quoteId)) {
    return erpError(422, 'unknown_quote', `quote_id: ${rfq.id} has no quote ${quoteId}`);
  }
  const next: Rfq = { ...rfq, status: 'awarded', awarded_quote_id: quoteId };
  const events: EpisodeEvent[] = [updated(call, 'rfqs', rfq.id, next)];
  for (const quote of quotes) {
    events.push(
      updated(call, 'quotes', quote.id, { ...quote, status: quote.id === quoteId ? 'accepted' : 'declined' }),
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

export const sourcingBehaviours: Record<string, PackBehaviour> = {
  createRfq,
  sendRfq,
  recordQuote,
  submitQuote,
  listRfqQuotes,
  withdrawQuote,
  awardRfq,
};
