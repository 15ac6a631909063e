import { isOutcome, PackBehaviour } from '@libs/twin-engine';

import { approvalRules } from './approval-rules';
import {
  as,
  body,
  caller,
  created,
  domainEvent,
  erpError,
  money,
  toUnitPrice,
  nextNumber,
  notFound,
  ok,
  record,
} from './erp-call';

const everyone = ['agent', 'requester', 'buyer', 'approver', 'finance', 'executive', 'supplier'] as const;

const getCurrentUser: PackBehaviour = (call) => {
  const user = caller(call);
  return isOutcome(user) ? user : ok(200, user, []);
};

const page = <T>(data: T[]) => ({ data, next_cursor: null });

const listSupplierContacts = as([...everyone], (call, user) => {
  const supplierId = call.params.supplierId;
  // A portal user knows no supplier but its own.
  if (!record(call, 'suppliers', supplierId) || (user.role === 'supplier' && user.supplier_id !== supplierId)) {
    return notFound('supplier', supplierId);
  }
  const contacts = call.state.ids(call.table('contacts'), supplierId).map((id) => record(call, 'contacts', id));
  return ok(200, page(contacts), []);
});

const listApprovalRules = as(
  everyone.filter((role) => role !== 'supplier'),
  (call) => ok(200, page(approvalRules(call.company)), []),
);

/** New suppliers start on hold: vetting is a separate step the twin does not model. */
const createSupplier = as(['agent', 'buyer', 'approver', 'executive'], (call, user) => {
  const input = body<{
    name: string;
    country: string;
    currency: string;
    category?: string;
    domain?: string;
    payment_terms_days?: number;
  }>(call);
  const id = nextNumber(call, 'suppliers', 'S', 3);
  const supplier = {
    id,
    name: input.name,
    country: input.country,
    currency: input.currency,
    ...(input.category ? { category: input.category } : {}),
    ...(input.domain ? { domain: input.domain } : {}),
    status: 'on_hold',
    payment_terms_days: input.payment_terms_days ?? 30,
    created_at: call.now,
    updated_at: call.now,
  };
  return ok(201, supplier, [
    created(call, 'suppliers', id, supplier),
    domainEvent(call, 'erp.supplier.created', { supplier_id: id, name: input.name, by: user.id }),
  ]);
});

const createRequisition = as(['agent', 'requester', 'buyer', 'approver', 'finance', 'executive'], (call, user) => {
  const input = body<{
    cost_centre: string;
    justification?: string;
    needed_by?: string;
    lines: { item_id?: string; description?: string; quantity: number; unit_price?: number }[];
  }>(call);
  if (!record(call, 'cost-centres', input.cost_centre)) {
    return erpError(422, 'unknown_cost_centre', `cost_centre: no cost centre ${input.cost_centre}`);
  }
  const lines = [];
  for (const [index, line] of input.lines.entries()) {
    const item = record<{ name: string; unit_price: number }>(call, 'items', line.item_id);
    if (line.item_id && !item) {
      return erpError(422, 'unknown_item', `lines/${index}/item_id: no catalogue item ${line.item_id}`);
    }
    const unitPrice = line.unit_price ?? item?.unit_price ?? 0;
    lines.push({
      line: index + 1,
      item_id: line.item_id ?? null,
      description: line.description ?? item?.name ?? 'unspecified',
      quantity: line.quantity,
      unit_price: toUnitPrice(unitPrice),
      amount: money(unitPrice * line.quantity),
    });
  }
  const id = nextNumber(call, 'requisitions', 'REQ-');
  const requisition = {
    id,
    status: 'submitted',
    requester_id: user.id,
    cost_centre: input.cost_centre,
    justification: input.justification ?? '',
    needed_by: input.needed_by ?? null,
    lines,
    estimated_total: money(lines.reduce((sum, l) => sum + l.amount, 0)),
    purchase_order_id: null,
    created_at: call.now,
  };
  return ok(201, requisition, [
    created(call, 'requisitions', id, requisition),
    domainEvent(call, 'erp.requisition.created', { requisition_id: id, cost_centre: input.cost_centre, by: user.id }),
  ]);
});

export const directoryBehaviours: Record<string, PackBehaviour> = {
  getCurrentUser,
  listSupplierContacts,
  listApprovalRules,
  createSupplier,
  createRequisition,
};
