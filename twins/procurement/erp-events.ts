import { eventNames } from '@libs/twin-engine';

/** Where a purchase order stands; each move between two is an `erp.po.<status>` event. */
export type PoStatus =
  | 'draft'
  | 'pending_approval'
  | 'approved'
  | 'rejected'
  | 'sent'
  | 'acknowledged'
  | 'declined'
  | 'received'
  | 'closed'
  | 'cancelled';

/** What every purchase-order event says about the order. */
export type OrderSummary = {
  po_id: string;
  supplier_id: string;
  cost_centre: string;
  total: number;
  currency: string;
  requester_id: string;
  by: string;
};

/** The ERP pack's domain events, by name: what scenarios and graders read from an episode's log. */
export type ErpDomainEvents = {
  'erp.po.created': OrderSummary & { lines: unknown[]; payment_terms_days: number };
  'erp.po.updated': OrderSummary & { changed: string[] };
  'erp.budget.committed': { cost_centre: string; po_id: string; amount: number; available_after: number };
  'erp.goods.received': { po_id: string; receipt_id: string; lines: { line: number; quantity: number }[]; by: string };
  'erp.rfq.created': { rfq_id: string; title: string; supplier_ids: string[]; by: string };
  'erp.rfq.sent': { rfq_id: string; supplier_ids: string[]; by: string };
  'erp.quote.received': {
    rfq_id: string | null;
    quote_id: string;
    supplier_id: string;
    total: number;
    basis: 'offer' | 'acceptance';
    by: string;
  };
  'erp.quote.withdrawn': { quote_id: string; supplier_id: string; by: string };
  'erp.rfq.awarded': {
    rfq_id: string;
    quote_id: string;
    supplier_id: string;
    total: number;
    quotes: { quote_id: string; supplier_id: string; total: number }[];
    by: string;
  };
  'erp.invoice.received': { invoice_id: string; po_id: string; total: number; by: string };
  'erp.supplier.created': { supplier_id: string; name: string; by: string };
  'erp.requisition.created': { requisition_id: string; cost_centre: string; by: string };
} & {
  /** A transition into `status`, from `from`, with the approval's comment or rule where there is one. */
  [K in `erp.po.${Exclude<PoStatus, 'draft'>}` | 'erp.po.draft']: OrderSummary & {
    from: PoStatus;
    comment?: string | null;
    rule?: string;
    auto?: boolean;
    reason_code?: string;
  };
} & {
  [K in 'erp.invoice.matched' | 'erp.invoice.exception']: {
    invoice_id: string;
    po_id: string;
    reasons: string[];
    by: string;
  };
};

export const erpEventNames = eventNames<ErpDomainEvents>({
  'erp.po.created': true,
  'erp.po.updated': true,
  'erp.po.draft': true,
  'erp.po.pending_approval': true,
  'erp.po.approved': true,
  'erp.po.rejected': true,
  'erp.po.sent': true,
  'erp.po.acknowledged': true,
  'erp.po.received': true,
  'erp.po.closed': true,
  'erp.po.cancelled': true,
  'erp.budget.committed': true,
  'erp.goods.received': true,
  'erp.rfq.created': true,
  'erp.rfq.sent': true,
  'erp.quote.received': true,
  'erp.quote.withdrawn': true,
  'erp.po.declined': true,
  'erp.rfq.awarded': true,
  'erp.invoice.received': true,
  'erp.invoice.matched': true,
  'erp.invoice.exception': true,
  'erp.supplier.created': true,
  'erp.requisition.created': true,
});
