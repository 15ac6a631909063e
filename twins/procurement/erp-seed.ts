import { Company, englishFaker, hashSeed, WorldRecord } from '@libs/synthetic-data';
import type { PackRow } from '@libs/twin-engine';

import { ruleFor } from './approval-rules';
import { ErpUser, money } from './erp-call';

/** History ends before the episode clock starts (2026-06-01T09:00:00Z). */
const daysBefore = (days: number): string =>
  new Date(Date.parse('2026-06-01T09:00:00Z') - days * 86_400_000).toISOString();

const row = (id: string, record: WorldRecord, parentId?: string): PackRow => ({
  id,
  record,
  ...(parentId !== undefined ? { parentId } : {}),
});

/** Historical orders, with the path each status took to get there. */
const historyPaths: Record<string, string[]> = {
  closed: ['draft', 'pending_approval', 'approved', 'sent', 'acknowledged', 'received', 'closed'],
  received: ['draft', 'pending_approval', 'approved', 'sent', 'acknowledged', 'received'],
  acknowledged: ['draft', 'pending_approval', 'approved', 'sent', 'acknowledged'],
  sent: ['draft', 'pending_approval', 'approved', 'sent'],
  approved: ['draft', 'pending_approval', 'approved'],
  pending_approval: ['draft', 'pending_approval'],
  draft: ['draft'],
  rejected: ['draft', 'pending_approval', 'rejected'],
  cancelled: ['draft', 'cancelled'],
};
const historyStatuses = Object.keys(historyPaths);

/**
 * The ERP of the company: a user per employee and per supplier contact (the supplier portal), suppliers and the
 * catalogue, budgets per cost centre, and a history of orders in every status (closed ones with matched invoices),
 * with the open commitments and spend the budgets show.
 */
export const seedErp = (company: Company, seed: number): Record<string, PackRow[]> => {
  const faker = englishFaker();
  const users: ErpUser[] = [
    ...company.employees.map((e) => ({
      id: e.id,
      name: e.name,
      email: e.email,
      role: e.role,
      title: e.title,
      department: e.department,
      cost_centre: e.costCentre,
      manager_id: e.managerId ?? null,
      supplier_id: null,
      approval_limit: e.approvalLimit,
    })),
    ...company.suppliers.flatMap((s) =>
      s.contacts.map((c) => ({
        id: c.id,
        name: c.name,
        email: c.email,
        role: 'supplier' as const,
        title: c.title,
        department: null,
        cost_centre: null,
        manager_id: null,
        supplier_id: s.id,
        approval_limit: 0,
      })),
    ),
  ];
  const suppliers = company.suppliers.map((s, index) =>
    row(s.id, {
      id: s.id,
      name: s.name,
      country: s.country,
      currency: s.currency,
      category: s.category,
      domain: s.domain,
      status: index % 17 === 16 ? 'blocked' : index % 11 === 10 ? 'on_hold' : 'active',
      payment_terms_days: s.paymentTermsDays,
      created_at: daysBefore(900 - index * 7),
      updated_at: daysBefore(120 - (index % 90)),
    }),
  );
  const contacts = company.suppliers.flatMap((s) =>
    s.contacts.map((c) =>
      row(c.id, { id: c.id, supplier_id: s.id, name: c.name, email: c.email, title: c.title, phone: c.phone }, s.id),
    ),
  );
  const items = company.items.map((i) =>
    row(i.id, {
      id: i.id,
      sku: i.sku,
      name: i.name,
      category: i.category,
      unit: i.unit,
      unit_price: i.unitPrice,
      currency: i.currency,
      supplier_id: i.supplierId,
    }),
  );

  const committed = new Map<string, number>();
  const spent = new Map<string, number>();
  const orders: PackRow[] = [];
  const invoices: PackRow[] = [];
  // History predates the agent: its orders were raised by the buyers.
  const buyers = company.employees.filter((e) => e.role === 'buyer');
  const itemsBySupplier = new Map<string, typeof company.items>();
  for (const item of company.items) {
    itemsBySupplier.set(item.supplierId, [...(itemsBySupplier.get(item.supplierId) ?? []), item]);
  }
  const usable = company.suppliers.filter((s, index) => index % 17 !== 16 && (itemsBySupplier.get(s.id)?.length ?? 0));
  for (let n = 0; n < Math.min(27, usable.length * 3); n++) {
    faker.seed(hashSeed(seed, 'erp-po', n));
    const supplier = usable[n % usable.length];
    const status = historyStatuses[n % historyStatuses.length];
    const requester = buyers[n % Math.max(1, buyers.length)] ?? company.agent;
    const centre = company.costCentres[n % company.costCentres.length];
    const catalogue = itemsBySupplier.get(supplier.id) ?? [];
    const lines = Array.from({ length: 1 + (n % 3) }, (_, l) => {
      const item = catalogue[(n + l) % catalogue.length];
      const quantity = faker.number.int({ min: 1, max: 40 }) * (item.unitPrice < 20 ? 25 : 1);
      const received = ['received', 'closed'].includes(status) ? quantity : 0;
      return {
        line: l + 1,
        item_id: item.id,
        description: item.name,
        quantity,
        unit: item.unit,
        unit_price: item.unitPrice,
        amount: money(quantity * item.unitPrice),
        received_quantity: received,
      };
    });
    const total = money(lines.reduce((sum, l) => sum + l.amount, 0));
    const created = 200 - n * 6;
    const approver = company.employees.find(
      (e) =>
        e.id !== requester.id &&
        e.approvalLimit >= total &&
        ruleFor(company, total).approver_roles.includes(e.role as never),
    );
    const path = historyPaths[status];
    const history = path.map((to, step) => ({
      from: step === 0 ? null : path[step - 1],
      to,
      by: to === 'approved' || to === 'rejected' ? (approver?.id ?? requester.id) : requester.id,
      at: daysBefore(created - step * 2),
    }));
    const approvals = path.includes('approved')
      ? [{ user_id: approver?.id ?? requester.id, decision: 'approved', comment: null, at: daysBefore(created - 4) }]
      : path.includes('rejected')
        ? [
            {
              user_id: approver?.id ?? requester.id,
              decision: 'rejected',
              comment: 'Not this quarter',
              at: daysBefore(created - 4),
            },
          ]
        : [];
    const id = `PO-2026-${String(n + 1).padStart(4, '0')}`;
    orders.push(
      row(id, {
        id,
        status,
        supplier_id: supplier.id,
        cost_centre: centre.code,
        requester_id: requester.id,
        currency: company.currency,
        lines,
        total,
        payment_terms_days: supplier.paymentTermsDays,
        delivery_date: daysBefore(created - 20).slice(0, 10),
        notes: null,
        rfq_id: null,
        quote_id: null,
        requisition_id: null,
        required_approval: ruleFor(company, total).id,
        approvals,
        history,
        created_at: daysBefore(created),
        updated_at: history[history.length - 1].at,
      }),
    );
    if (['approved', 'sent', 'acknowledged', 'received'].includes(status)) {
      committed.set(centre.code, (committed.get(centre.code) ?? 0) + total);
    }
    if (status === 'closed') {
      spent.set(centre.code, (spent.get(centre.code) ?? 0) + total);
      const invoiceId = `INV-${String(invoices.length + 1).padStart(4, '0')}`;
      invoices.push(
        row(invoiceId, {
          id: invoiceId,
          number: `${supplier.id}-${1000 + n}`,
          po_id: id,
          supplier_id: supplier.id,
          status: 'matched',
          lines: lines.map(({ received_quantity: _received, ...line }) => line),
          total,
          currency: company.currency,
          match: { result: 'matched', reasons: [], at: daysBefore(created - 14) },
          created_at: daysBefore(created - 13),
        }),
      );
    }
  }

  const costCentres = company.costCentres.map((c) => {
    const usedCommitted = money(committed.get(c.code) ?? 0);
    const usedSpent = money((spent.get(c.code) ?? 0) + c.budget * 0.3);
    return row(c.code, {
      id: c.code,
      code: c.code,
      name: c.name,
      department: c.department,
      budget: c.budget,
      committed: usedCommitted,
      spent: usedSpent,
      available: money(c.budget - usedCommitted - usedSpent),
      currency: company.currency,
      frozen: false,
    });
  });

  return {
    users: users.map((u) => row(u.id, u)),
    suppliers,
    contacts,
    items,
    'cost-centres': costCentres,
    'purchase-orders': orders,
    invoices,
    requisitions: [],
    rfqs: [],
    quotes: [],
    receipts: [],
  };
};
