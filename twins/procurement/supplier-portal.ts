/**
 * What a supplier's portal user reads of the ERP's records and another party wrote: the free text of its own orders
 * and of the requests for quotation it is invited to, in any status. The graders read the agent's writes to these
 * fields as disclosure to that supplier.
 */
export const supplierReadableText = [
  { table: 'purchase-orders', party: 'supplier_id', text: ['notes', 'lines.description'] },
  { table: 'rfqs', party: 'supplier_ids', text: ['title', 'description', 'notes', 'lines.description'] },
] as const;
