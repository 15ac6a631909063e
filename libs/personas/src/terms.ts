/**
 * The other issues of a multi-issue negotiation, priced the way a seller would: longer payment terms cost it the
 * money's time, faster delivery costs overtime and freight, a larger order earns a volume discount. A buyer's offer
 * is judged by its price *as if* on the seller's standard terms, so "0.25 at net 60" and "0.248 at net 30" compare.
 */
export interface Terms {
  paymentTermsDays: number;
  deliveryDays: number;
  quantity: number;
}

/** What the seller will agree to at all: terms it refuses are replaced by its limit. */
export const clampTerms = (requested: Partial<Terms>, standard: Terms): Terms => ({
  paymentTermsDays: Math.min(90, Math.max(0, requested.paymentTermsDays ?? standard.paymentTermsDays)),
  deliveryDays: Math.max(Math.ceil(standard.deliveryDays / 2), requested.deliveryDays ?? standard.deliveryDays),
  quantity: requested.quantity ?? standard.quantity,
});

/** The price multiplier of these terms against the standard ones (1 = the same). */
export const termsMultiplier = (terms: Terms, standard: Terms): number => {
  const payment = 1 + 0.0005 * (terms.paymentTermsDays - standard.paymentTermsDays);
  const delivery = 1 + 0.008 * Math.max(0, standard.deliveryDays - terms.deliveryDays);
  const extra = standard.quantity > 0 ? (terms.quantity - standard.quantity) / standard.quantity : 0;
  const volume = 1 - Math.max(-0.08, Math.min(0.08, 0.1 * extra));
  return payment * delivery * volume;
};
