import type { WrittenQuote } from '@libs/personas';
import { isPurchaseOrderCriterion } from '@libs/scenarios';
import type { FinalTerms } from '@libs/workflow-contracts';

import type { OutcomeSources, PurchaseOrder } from './outcome-sources';
import { evaluatePredicates, PredicateSubject } from './predicate-evaluation';
import { judgePurchaseOrder } from './purchase-order-outcome';

export interface OutcomeVerdict {
  succeeded: boolean;
  reason: string;
  finalTerms: FinalTerms | null;
}

/**
 * Says whether an episode's task succeeded, from what the twins recorded: every success criterion must hold, a
 * purchase order on terms its supplier agreed, or a predicate over the records and the log. The final terms are
 * those of the order a purchase-order criterion showed (null when there is none).
 */
export const judgeOutcome = async (
  sources: OutcomeSources,
  input: PredicateSubject & { currency: string },
): Promise<OutcomeVerdict> => {
  let orders: Promise<PurchaseOrder[]> | undefined;
  const quotes = new Map<string, Promise<WrittenQuote[]>>();
  const context = {
    instance: input.instance,
    agentEmployeeId: input.agent.employeeId,
    startAt: input.startAt,
    currency: input.currency,
    orders: () => (orders ??= sources.erp.purchaseOrders()),
    quotesFor: (supplierId: string) => {
      if (!quotes.has(supplierId)) {
        quotes.set(supplierId, sources.erp.quotes(supplierId));
      }
      return quotes.get(supplierId) as Promise<WrittenQuote[]>;
    },
  };
  const success = input.instance.success;
  const predicates = Object.fromEntries(
    success.flatMap((criterion, index) =>
      isPurchaseOrderCriterion(criterion) ? [] : [[String(index), criterion.when] as const],
    ),
  );
  const judged = Object.keys(predicates).length > 0 ? await evaluatePredicates(sources.records, input, predicates) : {};
  const reasons: string[] = [];
  let best: FinalTerms | null = null;
  for (const [index, criterion] of success.entries()) {
    if (isPurchaseOrderCriterion(criterion)) {
      const verdict = await judgePurchaseOrder(sources.erp, criterion, context);
      best = verdict.shown ?? best;
      if (!verdict.met) {
        reasons.push(verdict.reason ?? 'the purchase order is not placed');
      }
      continue;
    }
    const verdict = judged[String(index)];
    if (!verdict.met) {
      reasons.push(`${criterion.description ?? criterion.when}: ${verdict.reason ?? 'not met'}`);
    }
  }
  if (reasons.length > 0) {
    return { succeeded: false, reason: reasons.join('; '), finalTerms: best };
  }
  const met = success.every(isPurchaseOrderCriterion)
    ? `${best?.poId ?? 'the order'} meets the success terms`
    : `the success terms are met: ${success.map((c) => (isPurchaseOrderCriterion(c) ? (best?.poId ?? 'the order') : (c.description ?? c.when))).join('; ')}`;
  return { succeeded: true, reason: met, finalTerms: best };
};

/** The scenario's milestones judged on the twins' records and log: met or not, each with why not. */
export const judgeMilestones = (
  sources: Pick<OutcomeSources, 'records'>,
  input: PredicateSubject,
): Promise<Record<string, { met: boolean; reason?: string }>> =>
  Object.keys(input.instance.milestones ?? {}).length === 0
    ? Promise.resolve({})
    : evaluatePredicates(sources.records, input, input.instance.milestones ?? {});
