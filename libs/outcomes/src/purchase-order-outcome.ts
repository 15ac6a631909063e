import { orderAgreement, WrittenQuote } from '@libs/personas';
import { supplierOf, type PurchaseOrderCriterion, type TaskInstance } from '@libs/scenarios';
import { endOfBusinessDays, FinalTerms } from '@libs/workflow-contracts';

import type { ErpReads } from './outcome-sources';

const statusRank = ['draft', 'pending_approval', 'approved', 'sent', 'acknowledged', 'received', 'closed'];

/** A criterion's verdict: met or why not, and the order shown for it (the one that met it, else the latest). */
export interface CriterionVerdict {
  met: boolean;
  reason?: string;
  shown?: FinalTerms;
}

/**
 * Reads the ERP as finance would and says whether a purchase-order criterion is met. An order counts only on terms
 * its supplier agreed: once it is with the supplier (`sent` or later), only if the supplier acknowledged it (it
 * declines what it never agreed); before that, only if a quote of the supplier's own backs it. The terms shown are
 * those of that order, so savings are measured on a price the supplier confirmed.
 */
export const judgePurchaseOrder = async (
  erp: ErpReads,
  criterion: PurchaseOrderCriterion,
  context: {
    instance: TaskInstance;
    agentEmployeeId: string;
    startAt: string;
    currency: string;
    orders: () => Promise<Awaited<ReturnType<ErpReads['purchaseOrders']>>>;
    quotesFor: (supplierId: string) => Promise<WrittenQuote[]>;
  },
): Promise<CriterionVerdict> => {
  const orders = (await context.orders()).filter((order) => order.requester_id === context.agentEmployeeId);
  const contacts = new Map(
    criterion.supplierParties.flatMap((name) => {
      const supplier = supplierOf(context.instance.parties[name]);
      return supplier ? [[supplier.supplierId, supplier.contactId] as const] : [];
    }),
  );
  const withSupplier = statusRank.indexOf(criterion.minStatus) >= statusRank.indexOf('sent');
  const deadline =
    criterion.maxDeliveryBusinessDays === undefined
      ? undefined
      : new Date(endOfBusinessDays(Date.parse(context.startAt), criterion.maxDeliveryBusinessDays))
          .toISOString()
          .slice(0, 10);
  const candidates = await Promise.all(
    orders
      .filter((order) => contacts.has(order.supplier_id))
      .map(async (order) => ({
        order,
        agreed: withSupplier
          ? order.history.some((step) => step.to === 'acknowledged' && step.by === contacts.get(order.supplier_id))
          : orderAgreement(order, await context.quotesFor(order.supplier_id), context.currency).agreed,
        quantity: order.lines.reduce((sum, l) => sum + l.quantity, 0),
        unitPrice: Math.max(...order.lines.map((l) => l.unit_price)),
      })),
  );
  const meets = (c: (typeof candidates)[number]) =>
    c.agreed &&
    statusRank.indexOf(c.order.status) >= statusRank.indexOf(criterion.minStatus) &&
    c.quantity >= criterion.quantity &&
    c.unitPrice <= criterion.maxUnitPrice &&
    (criterion.minPaymentTermsDays === undefined ||
      (c.order.payment_terms_days ?? 0) >= criterion.minPaymentTermsDays) &&
    // A delivery deadline is met only by an order that states a delivery date on or before its day.
    (deadline === undefined || (typeof c.order.delivery_date === 'string' && c.order.delivery_date <= deadline));
  const met = candidates.find(meets);
  const shown = met ?? candidates[candidates.length - 1];
  const terms: FinalTerms | undefined = shown && {
    poId: shown.order.id,
    supplierId: shown.order.supplier_id,
    status: shown.order.status,
    quantity: shown.quantity,
    unitPrice: shown.unitPrice,
    paymentTermsDays: shown.order.payment_terms_days ?? 0,
    total: shown.order.total,
  };
  if (met) {
    return { met: true, ...(terms ? { shown: terms } : {}) };
  }
  const unagreed = shown && !shown.agreed;
  return {
    met: false,
    ...(terms ? { shown: terms } : {}),
    reason: !shown
      ? `no purchase order to ${criterion.supplierIds.join(' or ')}`
      : unagreed
        ? `${shown.order.id} is ${shown.order.status} and not on terms its supplier agreed${withSupplier ? ' (the supplier has not acknowledged it)' : ' (no quote of the supplier backs it)'}`
        : `${shown.order.id} is ${shown.order.status}, ${shown.quantity} at ${shown.unitPrice}${shown.order.delivery_date ? `, delivery ${shown.order.delivery_date}` : ''}; needed ${criterion.minStatus}, ${criterion.quantity} at most ${criterion.maxUnitPrice}${deadline !== undefined ? `, delivered by ${deadline}` : ''}`,
  };
};
