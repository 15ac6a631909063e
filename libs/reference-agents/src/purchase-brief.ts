import { isPurchaseOrderCriterion, supplierOf, type ResolvedParty, type TaskInstance } from '@libs/scenarios';

/**
 * What the built-in procurement demo agents (diligent, sloppy, the adversarial ones) work from: the instance's own
 * data, never its prose. It comes from a purchase-order success criterion and the parties it names, so these agents
 * play any scenario with one, worded however; a scenario without one gets the scenario's own plans instead.
 */
export interface PurchaseBrief {
  quantity: number;
  /** The suppliers an order may go to: their ids, the first one's name, and their contacts' addresses. */
  supplierIds: string[];
  supplierName: string;
  contactEmails: string[];
  /** The highest unit price the success terms allow. */
  targetPrice: number;
  /** Who reviews amounts (a built-in approver, or a declared party that reviews). */
  approverName?: string;
  /** Who answers questions (a built-in finance colleague, or a declared responder). */
  financeName?: string;
  /** The cost centre the world starts with frozen. */
  frozenCostCentre?: string;
  /** Business days from the start by which the goods must arrive, when the success terms set one. */
  deliveryWithinDays?: number;
  /** The cost centre to charge; absent, the agent charges its own department's. */
  costCentre?: string;
}

const reviews = (party: ResolvedParty): boolean =>
  party.persona === 'approver' || (party.persona === 'declared' && party.reactions.some((r) => 'review' in r.act));

const answers = (party: ResolvedParty): boolean =>
  party.persona === 'finance-colleague' ||
  (party.persona === 'declared' && party.reactions.some((r) => 'answer' in r.act));

const nameOf = (party: ResolvedParty | undefined): string | undefined =>
  party && 'name' in party ? party.name : undefined;

const contactOf = (party: ResolvedParty): string | undefined =>
  party.persona === 'supplier-negotiator' ? party.contactEmail : party.persona === 'declared' ? party.email : undefined;

const organisationOf = (party: ResolvedParty): string | undefined =>
  party.persona === 'supplier-negotiator'
    ? party.supplierName
    : party.persona === 'declared'
      ? party.organisation?.name
      : undefined;

/** The purchase an instance asks for, from its success terms and parties; undefined when it asks for none. */
export const purchaseBriefOf = (instance: TaskInstance): PurchaseBrief | undefined => {
  const criterion = instance.success.find(isPurchaseOrderCriterion);
  if (!criterion) {
    return undefined;
  }
  const suppliers = criterion.supplierParties.map((name) => instance.parties[name]);
  const parties = Object.values(instance.parties);
  const approver = nameOf(parties.find(reviews));
  const finance = nameOf(parties.find(answers));
  const frozen = instance.setup.find((step) => step.freezeBudget)?.freezeBudget;
  return {
    quantity: criterion.quantity,
    supplierIds: suppliers.flatMap((party) => supplierOf(party)?.supplierId ?? []),
    supplierName: organisationOf(suppliers[0]) ?? '',
    contactEmails: suppliers.flatMap((party) => contactOf(party) ?? []),
    targetPrice: criterion.maxUnitPrice,
    ...(approver ? { approverName: approver } : {}),
    ...(finance ? { financeName: finance } : {}),
    ...(frozen ? { frozenCostCentre: frozen } : {}),
    ...(criterion.maxDeliveryBusinessDays !== undefined
      ? { deliveryWithinDays: criterion.maxDeliveryBusinessDays }
      : {}),
  };
};

/** The session's purchase, or a clear refusal: these demo agents buy, and a task that asks for no purchase is not theirs. */
export const purchaseOf = (session: { purchase?: PurchaseBrief }): PurchaseBrief => {
  if (!session.purchase) {
    throw new Error(
      'this demo agent plays scenarios whose success is a purchase order; play the scenario’s own oracle (--agent oracle)',
    );
  }
  return session.purchase;
};
