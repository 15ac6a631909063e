import type { WorldRecord } from '@libs/synthetic-data';
import { PackBehaviour } from '@libs/twin-engine';

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
import { PurchaseOrder } from './purchase-orders';

interface InvoiceLine {
  line: number;
  quantity: number;
  unit_price: number;
}

interface Invoice extends WorldRecord {
  id: string;
  po_id: string;
  supplier_id: string;
  status: 'received' | 'matched' | 'exception';
  lines: (InvoiceLine & { description: string; amount: number; item_id: string | null })[];
  total: number;
}

/** Invoice prices may differ from the order's by this share before the match fails. */
export const priceTolerance = 0.02;

const invoiceable = ['sent', 'acknowledged', 'received', 'closed'];

/** A supplier's invoice, keyed in by finance or sent by the supplier through its portal token. */
const recordInvoice = as(['finance', 'supplier', 'agent', 'buyer'], (call, user) => {
  const input = body<{ number: string; po_id: string; lines: InvoiceLine[] }>(call);
  const order = record<PurchaseOrder>(call, 'purchase-orders', input.po_id);
  if (!order || (user.role === 'supplier' && user.supplier_id !== order.supplier_id)) {
    return erpError(422, 'unknown_purchase_order', `po_id: no purchase order ${input.po_id}`);
  }
  if (!invoiceable.includes(order.status)) {
    return erpError(409, 'not_invoiceable', `${order.id} is ${order.status}; invoices follow a sent order`);
  }
  const lines = [];
  for (const [index, line] of input.lines.entries()) {
    const ordered = order.lines.find((l) => l.line === line.line);
    if (!ordered) {
      return erpError(422, 'unknown_line', `lines/${index}/line: ${order.id} has no line ${line.line}`);
    }
    lines.push({
      line: line.line,
      item_id: ordered.item_id,
      description: ordered.description,
      quantity: line.quantity,
      unit_price: toUnitPrice(line.unit_price),
      amount: money(line.quantity * line.unit_price),
    });
  }
  const id = nextNumber(call, 'invoices', 'INV-');
  const invoice: Invoice = {
    id,
    number: input.number,
    po_id: order.id,
    supplier_id: order.supplier_id,
    status: 'received',
    lines,
    total: money(lines.reduce((sum, l) => sum + l.amount, 0)),
    currency: order.currency,
    match: null,
    created_at: call.now,
  };
  return ok(201, invoice, [
    created(call, 'invoices', id, invoice),
    domainEvent(call, 'erp.invoice.received', { invoice_id: id, po_id: order.id, total: invoice.total, by: user.id }),
  ]);
});

/** Three-way match: every invoiced quantity received, every price within tolerance of the order's. */
const matchInvoice = as(['finance', 'agent', 'buyer'], (call, user) => {
  const invoice = record<Invoice>(call, 'invoices', call.params.invoiceId);
  if (!invoice) {
    return notFound('invoice', call.params.invoiceId);
  }
  if (invoice.status === 'matched') {
    return erpError(409, 'already_matched', `${invoice.id} is already matched`);
  }
  const order = record<PurchaseOrder>(call, 'purchase-orders', invoice.po_id);
  if (!order) {
    return notFound('purchase order', invoice.po_id);
  }
  const reasons: string[] = [];
  for (const line of invoice.lines) {
    const ordered = order.lines.find((l) => l.line === line.line);
    if (!ordered) {
      reasons.push(`line ${line.line} is not on ${order.id}`);
      continue;
    }
    if (line.quantity > ordered.received_quantity) {
      reasons.push(`line ${line.line}: invoiced ${line.quantity}, received ${ordered.received_quantity}`);
    }
    if (Math.abs(line.unit_price - ordered.unit_price) > ordered.unit_price * priceTolerance) {
      reasons.push(`line ${line.line}: invoiced at ${line.unit_price}, ordered at ${ordered.unit_price}`);
    }
  }
  const result = reasons.length === 0 ? 'matched' : 'exception';
  const next: Invoice = { ...invoice, status: result, match: { result, reasons, at: call.now } };
  const events = [
    updated(call, 'invoices', invoice.id, next),
    domainEvent(call, `erp.invoice.${result}`, { invoice_id: invoice.id, po_id: order.id, reasons, by: user.id }),
  ];
  return ok(200, next, events);
});

export const invoiceBehaviours: Record<string, PackBehaviour> = { recordInvoice, matchInvoice };
