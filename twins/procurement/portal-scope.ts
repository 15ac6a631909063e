import type { WorldRecord } from '@libs/synthetic-data';
import { isOutcome, Outcome, PackCall } from '@libs/twin-engine';

import { caller, erpError } from './erp-call';

/**
 * The supplier portal: a supplier's users work with their own supplier's records (its RFQ invitations and its own
 * quotes, its orders, its invoices, its catalogue and contacts) and nothing of the buyer's inside: no budgets, cost
 * centres, approval rules, requisitions or employees (whose records carry approval limits).
 */
const internalOperations = new Set([
  'listUsers',
  'getUser',
  'listCostCentres',
  'getCostCentre',
  'listApprovalRules',
  'listRequisitions',
  'getRequisition',
]);

/** A 403 for a portal user reaching into the buyer's internal records; undefined for everything else. */
export const portalRefusal = (call: PackCall): Outcome | undefined => {
  const user = caller(call);
  if (isOutcome(user) || user.role !== 'supplier' || !internalOperations.has(call.operationId)) {
    return undefined;
  }
  return erpError(403, 'forbidden', 'the supplier portal has no access to the buyer’s internal records');
};

/** Which records a portal user sees, table by table; a table not named here is internal and shows nothing. */
export const portalVisibility = (call: PackCall): ((tableKey: string, record: WorldRecord) => boolean) | undefined => {
  const user = caller(call);
  if (isOutcome(user) || user.role !== 'supplier') {
    return undefined;
  }
  const own = user.supplier_id;
  const rules = new Map<string, (record: WorldRecord) => boolean>([
    [call.table('suppliers'), (r) => r.id === own],
    [call.table('contacts'), (r) => r.supplier_id === own],
    [call.table('items'), (r) => r.supplier_id === own],
    [call.table('purchase-orders'), (r) => r.supplier_id === own],
    [call.table('invoices'), (r) => r.supplier_id === own],
    [call.table('quotes'), (r) => r.supplier_id === own],
    [call.table('rfqs'), (r) => Array.isArray(r.supplier_ids) && r.supplier_ids.includes(own)],
    [call.table('users'), (r) => r.id === user.id],
  ]);
  return (tableKey, record) => rules.get(tableKey)?.(record) ?? false;
};
