import type { WorldRecord } from '@libs/synthetic-data';
import { EpisodeEvent, isOutcome, Outcome, PackBehaviour, PackCall } from '@libs/twin-engine';

import { approvalRefusal, ruleFor } from './approval-rules';
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
import type { OrderSummary, PoStatus } from './erp-events';

export interface PoLine {
  line: number;
  item_id: string | null;
  description: string;
  quantity: number;
  unit?: string;
  unit_price: number;
  amount: number;
  received_quantity: number;
}

export interface PurchaseOrder extends WorldRecord {
  id: string;
  status: PoStatus;
  supplier_id: string;
  cost_centre: string;
  requester_id: string;
  currency: string;
  lines: PoLine[];
  total: number;
  approvals: { user_id: string; decision: string; comment: string | null; at: string }[];
  history: { from: PoStatus | null; to: PoStatus; by: string; at: string }[];
  quote_id: string | null;
  rfq_id: string | null;
  requisition_id: string | null;
}

interface LineInput {
  item_id?: string;
  description?: string;
  quantity: number;
  unit_price?: number;
}

/** Which transitions each action may make: the one state machine every order follows. */
const transitions: Record<string, { from: PoStatus[]; to: PoStatus }> = {
  submit: { from: ['draft'], to: 'pending_approval' },
  approve: { from: ['pending_approval'], to: 'approved' },
  reject: { from: ['pending_approval'], to: 'rejected' },
  reopen: { from: ['rejected'], to: 'draft' },
  send: { from: ['approved'], to: 'sent' },
  acknowledge: { from: ['sent'], to: 'acknowledged' },
  decline: { from: ['sent'], to: 'declined' },
  receive: { from: ['sent', 'acknowledged'], to: 'received' },
  close: { from: ['received'], to: 'closed' },
  cancel: { from: ['draft', 'pending_approval', 'approved'], to: 'cancelled' },
};

const illegal = (order: PurchaseOrder, action: string): Outcome =>
  erpError(
    409,
    'invalid_transition',
    `${order.id} is ${order.status}; ${action} needs it to be ${transitions[action].from.join(' or ')}`,
    [{ status: order.status, action, allowed_from: transitions[action].from }],
  );

const orderOf = (call: PackCall): PurchaseOrder | Outcome =>
  record<PurchaseOrder>(call, 'purchase-orders', call.params.poId) ?? notFound('purchase order', call.params.poId);

/** Lines priced from the catalogue where the caller names an item and gives no price. */
const pricedLines = (call: PackCall, supplierId: string, inputs: LineInput[]): PoLine[] | Outcome => {
  const lines: PoLine[] = [];
  for (const [index, input] of inputs.entries()) {
    const item = record<{ name: string; unit: string; unit_price: number; supplier_id: string }>(
      call,
      'items',
      input.item_id,
    );
    if (input.item_id && !item) {
      return erpError(422, 'unknown_item', `lines/${index}/item_id: no catalogue item ${input.item_id}`);
    }
    if (item && item.supplier_id !== supplierId) {
      return erpError(
        422,
        'item_of_another_supplier',
        `lines/${index}/item_id: ${input.item_id} is not ${supplierId}'s`,
      );
    }
    const unitPrice = input.unit_price ?? item?.unit_price;
    if (unitPrice === undefined) {
      return erpError(422, 'price_required', `lines/${index}: a line without a catalogue item needs a unit_price`);
    }
    const description = input.description ?? item?.name;
    if (!description) {
      return erpError(422, 'description_required', `lines/${index}: a line needs an item_id or a description`);
    }
    lines.push({
      line: index + 1,
      item_id: input.item_id ?? null,
      description,
      quantity: input.quantity,
      ...(item ? { unit: item.unit } : {}),
      unit_price: toUnitPrice(unitPrice),
      amount: money(input.quantity * unitPrice),
      received_quantity: 0,
    });
  }
  return lines;
};

const totalOf = (lines: PoLine[]): number => money(lines.reduce((sum, line) => sum + line.amount, 0));

const summary = (order: PurchaseOrder): Omit<OrderSummary, 'by'> => ({
  po_id: order.id,
  supplier_id: order.supplier_id,
  cost_centre: order.cost_centre,
  total: order.total,
  currency: order.currency,
  requester_id: order.requester_id,
});

/** Moves an order along the state machine: the record with its history, and an `erp.po.<to>` event. */
const move = (
  call: PackCall,
  user: ErpUser,
  order: PurchaseOrder,
  to: PoStatus,
  changes: Partial<PurchaseOrder> = {},
  extra: EpisodeEvent[] = [],
  eventData: { comment?: string | null; rule?: string; auto?: boolean; reason_code?: string } = {},
): Outcome => {
  const next: PurchaseOrder = {
    ...order,
    ...changes,
    status: to,
    history: [...order.history, { from: order.status, to, by: user.id, at: call.now }],
    updated_at: call.now,
  };
  return ok(200, next, [
    updated(call, 'purchase-orders', order.id, next),
    ...extra,
    domainEvent(call, `erp.po.${to}`, { ...summary(next), by: user.id, from: order.status, ...eventData }),
  ]);
};

interface CostCentre extends WorldRecord {
  code: string;
  budget: number;
  committed: number;
  spent: number;
  available: number;
  frozen: boolean;
}

const budgetChange = (call: PackCall, code: string, committed: number, spent: number): EpisodeEvent | Outcome => {
  const centre = record<CostCentre>(call, 'cost-centres', code);
  if (!centre) {
    return erpError(422, 'unknown_cost_centre', `no cost centre ${code}`);
  }
  const next: CostCentre = {
    ...centre,
    committed: money(centre.committed + committed),
    spent: money(centre.spent + spent),
    available: money(centre.available - committed - spent),
  };
  return updated(call, 'cost-centres', code, next);
};

/** Approval commits the total; a frozen or exhausted budget refuses. */
const commit = (call: PackCall, order: PurchaseOrder): EpisodeEvent[] | Outcome => {
  const centre = record<CostCentre>(call, 'cost-centres', order.cost_centre);
  if (!centre) {
    return erpError(422, 'unknown_cost_centre', `no cost centre ${order.cost_centre}`);
  }
  if (centre.frozen) {
    return erpError(409, 'budget_frozen', `the budget of ${centre.code} is frozen; no new commitments`);
  }
  if (order.total > centre.available) {
    return erpError(
      409,
      'budget_exceeded',
      `${order.id} totals ${order.total} but ${centre.code} has ${centre.available} available`,
    );
  }
  const change = budgetChange(call, order.cost_centre, order.total, 0);
  return isOutcome(change)
    ? change
    : [
        change,
        domainEvent(call, 'erp.budget.committed', {
          cost_centre: centre.code,
          po_id: order.id,
          amount: order.total,
          available_after: money(centre.available - order.total),
        }),
      ];
};

const buyers = ['agent', 'buyer', 'approver', 'executive'] as const;

const createPurchaseOrder = as([...buyers], (call, user) => {
  const input = body<{
    supplier_id: string;
    cost_centre: string;
    lines: LineInput[];
    payment_terms_days?: number;
    delivery_date?: string;
    notes?: string;
    rfq_id?: string;
    quote_id?: string;
    requisition_id?: string;
  }>(call);
  const supplier = record<{ status: string; currency: string; payment_terms_days: number }>(
    call,
    'suppliers',
    input.supplier_id,
  );
  if (!supplier) {
    return erpError(422, 'unknown_supplier', `supplier_id: no supplier ${input.supplier_id}`);
  }
  if (supplier.status === 'blocked') {
    return erpError(422, 'supplier_blocked', `supplier_id: ${input.supplier_id} is blocked`);
  }
  if (!record(call, 'cost-centres', input.cost_centre)) {
    return erpError(422, 'unknown_cost_centre', `cost_centre: no cost centre ${input.cost_centre}`);
  }
  const lines = pricedLines(call, input.supplier_id, input.lines);
  if (isOutcome(lines)) {
    return lines;
  }
  const id = nextNumber(call, 'purchase-orders', 'PO-2026-');
  const total = totalOf(lines);
  const order: PurchaseOrder = {
    id,
    status: 'draft',
    supplier_id: input.supplier_id,
    cost_centre: input.cost_centre,
    requester_id: user.id,
    currency: call.company.currency,
    lines,
    total,
    payment_terms_days: input.payment_terms_days ?? supplier.payment_terms_days,
    delivery_date: input.delivery_date ?? null,
    notes: input.notes ?? null,
    rfq_id: input.rfq_id ?? null,
    quote_id: input.quote_id ?? null,
    requisition_id: input.requisition_id ?? null,
    required_approval: ruleFor(call.company, total).id,
    approvals: [],
    history: [{ from: null, to: 'draft', by: user.id, at: call.now }],
    created_at: call.now,
    updated_at: call.now,
  };
  const events: EpisodeEvent[] = [created(call, 'purchase-orders', id, order)];
  const requisition = record<WorldRecord>(call, 'requisitions', input.requisition_id);
  if (requisition) {
    events.push(
      updated(call, 'requisitions', String(requisition.id), {
        ...requisition,
        status: 'ordered',
        purchase_order_id: id,
      }),
    );
  }
  events.push(
    domainEvent(call, 'erp.po.created', {
      ...summary(order),
      by: user.id,
      lines,
      payment_terms_days: Number(order.payment_terms_days),
    }),
  );
  return ok(201, order, events);
});

const updatePurchaseOrder = as([...buyers], (call, user) => {
  const order = orderOf(call);
  if (isOutcome(order)) {
    return order;
  }
  if (order.status !== 'draft') {
    return erpError(409, 'invalid_transition', `${order.id} is ${order.status}; only drafts can be changed`);
  }
  if (order.requester_id !== user.id) {
    return erpError(403, 'forbidden', `${order.id} is ${order.requester_id}'s draft`);
  }
  const changes = body<{ lines?: LineInput[]; payment_terms_days?: number; delivery_date?: string; notes?: string }>(
    call,
  );
  let lines = order.lines;
  if (changes.lines) {
    const priced = pricedLines(call, order.supplier_id, changes.lines);
    if (isOutcome(priced)) {
      return priced;
    }
    lines = priced;
  }
  const total = totalOf(lines);
  const next: PurchaseOrder = {
    ...order,
    ...(changes.payment_terms_days !== undefined ? { payment_terms_days: changes.payment_terms_days } : {}),
    ...(changes.delivery_date !== undefined ? { delivery_date: changes.delivery_date } : {}),
    ...(changes.notes !== undefined ? { notes: changes.notes } : {}),
    lines,
    total,
    required_approval: ruleFor(call.company, total).id,
    updated_at: call.now,
  };
  return ok(200, next, [
    updated(call, 'purchase-orders', order.id, next),
    domainEvent(call, 'erp.po.updated', { ...summary(next), by: user.id, changed: Object.keys(changes) }),
  ]);
});

/** Submission; at or under the auto-approval amount the order is approved (and committed) at once. */
const submitPurchaseOrder = as([...buyers], (call, user) => {
  const order = orderOf(call);
  if (isOutcome(order)) {
    return order;
  }
  if (!transitions.submit.from.includes(order.status)) {
    return illegal(order, 'submit');
  }
  const submitted = move(call, user, order, 'pending_approval');
  const rule = ruleFor(call.company, order.total);
  if (!rule.auto_approve) {
    return submitted;
  }
  const pending = submitted.response.body as PurchaseOrder;
  const commitment = commit(call, pending);
  if (isOutcome(commitment)) {
    return commitment;
  }
  const approved = move(
    call,
    user,
    pending,
    'approved',
    { approvals: [{ user_id: user.id, decision: 'auto_approved', comment: rule.description, at: call.now }] },
    commitment,
    { rule: rule.id, auto: true },
  );
  return { response: approved.response, events: [...submitted.events, ...approved.events] };
});

const decision = (action: 'approve' | 'reject'): PackBehaviour =>
  as(['buyer', 'approver', 'executive', 'finance', 'agent', 'requester'], (call, user) => {
    const order = orderOf(call);
    if (isOutcome(order)) {
      return order;
    }
    if (!transitions[action].from.includes(order.status)) {
      return illegal(order, action);
    }
    const refusal = approvalRefusal(call.company, user, order.total, order.requester_id);
    if (refusal) {
      return erpError(403, order.requester_id === user.id ? 'self_approval' : 'approval_limit_exceeded', refusal);
    }
    const input = body<{ comment?: string; reason_code?: string } | undefined>(call);
    const comment = input?.comment ?? null;
    // A rejection may say why in a code reports can count (`over_limit`, `unquoted_price`), beside the free comment.
    const reason = action === 'reject' && input?.reason_code ? { reason_code: input.reason_code } : {};
    const approvals = [
      ...order.approvals,
      { user_id: user.id, decision: action === 'approve' ? 'approved' : 'rejected', comment, ...reason, at: call.now },
    ];
    if (action === 'reject') {
      return move(call, user, order, 'rejected', { approvals }, [], { comment, ...reason });
    }
    const commitment = commit(call, order);
    return isOutcome(commitment)
      ? commitment
      : move(call, user, order, 'approved', { approvals }, commitment, {
          comment,
          rule: ruleFor(call.company, order.total).id,
        });
  });

const simpleMove = (action: keyof typeof transitions, roles: Parameters<typeof as>[0]): PackBehaviour =>
  as(roles, (call, user) => {
    const order = orderOf(call);
    if (isOutcome(order)) {
      return order;
    }
    if (user.role === 'supplier' && user.supplier_id !== order.supplier_id) {
      return notFound('purchase order', order.id);
    }
    return transitions[action].from.includes(order.status)
      ? move(call, user, order, transitions[action].to)
      : illegal(order, action);
  });

/** The order's own supplier, through its portal: anyone else gets the answer for an order they cannot see. */
const supplierOwn = (call: PackCall, user: ErpUser): PurchaseOrder | Outcome => {
  const order = orderOf(call);
  if (isOutcome(order)) {
    return order;
  }
  if (user.role !== 'supplier') {
    return erpError(403, 'forbidden', `only ${order.supplier_id} answers its purchase order ${order.id}`);
  }
  return user.supplier_id === order.supplier_id ? order : notFound('purchase order', order.id);
};

/** The supplier confirms the order, naming its own open quote the order is on when it gives one. */
const acknowledgePurchaseOrder = as(['supplier', ...buyers], (call, user) => {
  const order = supplierOwn(call, user);
  if (isOutcome(order)) {
    return order;
  }
  if (!transitions.acknowledge.from.includes(order.status)) {
    return illegal(order, 'acknowledge');
  }
  const quoteId = body<{ quote_id?: string } | undefined>(call)?.quote_id;
  if (quoteId !== undefined) {
    const quote = record<{ supplier_id: string; status: string }>(call, 'quotes', quoteId);
    if (!quote || quote.supplier_id !== order.supplier_id) {
      return erpError(422, 'unknown_quote', `quote_id: ${order.supplier_id} has no quote ${quoteId}`);
    }
    if (quote.status === 'withdrawn' || quote.status === 'declined') {
      return erpError(422, 'quote_not_open', `quote_id: ${quoteId} is ${quote.status}`);
    }
  }
  return move(call, user, order, 'acknowledged', { agreed_quote_id: quoteId ?? null });
});

/** The supplier refuses the order, saying why; an approved order's commitment is released, as on a cancellation. */
const declinePurchaseOrder = as(['supplier', ...buyers], (call, user) => {
  const order = supplierOwn(call, user);
  if (isOutcome(order)) {
    return order;
  }
  if (!transitions.decline.from.includes(order.status)) {
    return illegal(order, 'decline');
  }
  const { reason } = body<{ reason: string }>(call);
  const release = budgetChange(call, order.cost_centre, -order.total, 0);
  if (isOutcome(release)) {
    return release;
  }
  return move(call, user, order, 'declined', { declined_reason: reason }, [release], { comment: reason });
});

const cancelPurchaseOrder = as([...buyers], (call, user) => {
  const order = orderOf(call);
  if (isOutcome(order)) {
    return order;
  }
  if (!transitions.cancel.from.includes(order.status)) {
    return illegal(order, 'cancel');
  }
  const release: EpisodeEvent[] = [];
  if (order.status === 'approved') {
    const change = budgetChange(call, order.cost_centre, -order.total, 0);
    if (isOutcome(change)) {
      return change;
    }
    release.push(change);
  }
  return move(call, user, order, 'cancelled', {}, release, {
    comment: body<{ comment?: string } | undefined>(call)?.comment ?? null,
  });
});

const receiveGoods = as(['agent', 'buyer', 'requester', 'approver', 'executive'], (call, user) => {
  const order = orderOf(call);
  if (isOutcome(order)) {
    return order;
  }
  if (!transitions.receive.from.includes(order.status)) {
    return illegal(order, 'receive');
  }
  const receipt = body<{ lines: { line: number; quantity: number }[] }>(call);
  const lines = order.lines.map((line) => ({ ...line }));
  for (const [index, received] of receipt.lines.entries()) {
    const line = lines.find((l) => l.line === received.line);
    if (!line) {
      return erpError(422, 'unknown_line', `lines/${index}/line: ${order.id} has no line ${received.line}`);
    }
    if (line.received_quantity + received.quantity > line.quantity) {
      return erpError(
        422,
        'over_receipt',
        `lines/${index}/quantity: line ${line.line} ordered ${line.quantity}, received ${line.received_quantity} so far`,
      );
    }
    line.received_quantity = money(line.received_quantity + received.quantity);
  }
  const receiptId = nextNumber(call, 'receipts', 'GR-');
  const receiptEvents: EpisodeEvent[] = [
    created(
      call,
      'receipts',
      receiptId,
      { id: receiptId, po_id: order.id, lines: receipt.lines, received_by: user.id, received_at: call.now },
      order.id,
    ),
    domainEvent(call, 'erp.goods.received', {
      po_id: order.id,
      receipt_id: receiptId,
      lines: receipt.lines,
      by: user.id,
    }),
  ];
  const complete = lines.every((line) => line.received_quantity >= line.quantity);
  if (!complete) {
    const next = { ...order, lines, updated_at: call.now };
    return ok(200, next, [updated(call, 'purchase-orders', order.id, next), ...receiptEvents]);
  }
  return move(call, user, order, 'received', { lines }, receiptEvents);
});

/** Closing needs a matched invoice; the commitment becomes spend. */
const closePurchaseOrder = as(['agent', 'buyer', 'finance', 'approver', 'executive'], (call, user) => {
  const order = orderOf(call);
  if (isOutcome(order)) {
    return order;
  }
  if (!transitions.close.from.includes(order.status)) {
    return illegal(order, 'close');
  }
  const matched = call.state
    .ids(call.table('invoices'))
    .map((id) => record<{ po_id: string; status: string }>(call, 'invoices', id))
    .some((invoice) => invoice?.po_id === order.id && invoice.status === 'matched');
  if (!matched) {
    return erpError(409, 'invoice_not_matched', `${order.id} has no matched invoice yet`);
  }
  const change = budgetChange(call, order.cost_centre, -order.total, order.total);
  return isOutcome(change) ? change : move(call, user, order, 'closed', {}, [change]);
});

export const purchaseOrderBehaviours: Record<string, PackBehaviour> = {
  createPurchaseOrder,
  updatePurchaseOrder,
  submitPurchaseOrder,
  approvePurchaseOrder: decision('approve'),
  rejectPurchaseOrder: decision('reject'),
  reopenPurchaseOrder: simpleMove('reopen', [...buyers]),
  sendPurchaseOrder: simpleMove('send', [...buyers]),
  acknowledgePurchaseOrder,
  declinePurchaseOrder,
  receiveGoods,
  closePurchaseOrder,
  cancelPurchaseOrder,
};
