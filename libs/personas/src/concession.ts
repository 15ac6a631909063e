import type { NegotiationStrategy } from '@libs/scenarios';

/**
 * How a seller's asking price moves over the rounds of a negotiation, after the time-dependent tactics of Faratin,
 * Sierra and Jennings (1998): the ask goes from the opening price to the reservation price as
 * `opening − (opening − reservation) · (t/T)^(1/β)`. Boulware (β < 1) holds out until near the deadline, conceder
 * (β > 1) gives ground early, linear (β = 1) evenly. Tit-for-tat (Axelrod's relative tactic) mirrors the buyer:
 * the seller gives as much ground as the buyer's last offer gave.
 */
const beta: Record<Exclude<NegotiationStrategy, 'tit-for-tat'>, number> = { boulware: 0.35, linear: 1, conceder: 3 };

export interface ConcessionState {
  strategy: NegotiationStrategy;
  opening: number;
  reservation: number;
  /** Rounds before the deadline (the persona's patience). */
  rounds: number;
}

const roundTo = (value: number, decimals: number): number => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** Price decimals that suit the scale: bolts in tenths of a cent, sensors in cents. */
export const priceDecimals = (price: number): number => (price < 1 ? 3 : 2);

/**
 * The seller's ask in round `round` (1 = the first counter-offer). For tit-for-tat, `buyerOffers` are the buyer's
 * offers so far and `previousAsk` the seller's last ask.
 */
export const askingPrice = (
  state: ConcessionState,
  round: number,
  previousAsk: number,
  buyerOffers: number[],
): number => {
  const decimals = priceDecimals(state.opening);
  if (state.strategy === 'tit-for-tat') {
    const [before, last] = buyerOffers.slice(-2);
    const buyerMove = before !== undefined && last !== undefined ? Math.max(0, last - before) : 0;
    // Mirror the buyer's move; a small step of good faith when the buyer has only made one offer.
    const step = buyerOffers.length < 2 ? (state.opening - state.reservation) * 0.15 : buyerMove;
    return roundTo(Math.max(state.reservation, previousAsk - step), decimals);
  }
  const t = Math.min(1, round / Math.max(1, state.rounds));
  const ask = state.opening - (state.opening - state.reservation) * t ** (1 / beta[state.strategy]);
  return roundTo(Math.max(state.reservation, ask), decimals);
};

export type SellerMove =
  | { kind: 'accept'; price: number }
  | { kind: 'counter'; price: number }
  | { kind: 'walk-away'; reason: 'insulted' | 'stalled' };

/**
 * The seller's answer to a buyer's offer: accept when the offer meets what it would ask next, walk away when the
 * buyer insults it (under 60 % of its floor, twice) or the talks run past its patience, else counter.
 */
export const sellerMove = (
  state: ConcessionState,
  round: number,
  previousAsk: number,
  buyerOffers: number[],
  insults: number,
): SellerMove => {
  const offer = buyerOffers[buyerOffers.length - 1];
  if (offer !== undefined && offer < state.reservation * 0.6 && insults >= 1) {
    return { kind: 'walk-away', reason: 'insulted' };
  }
  if (round > state.rounds + 2) {
    return { kind: 'walk-away', reason: 'stalled' };
  }
  const ask = askingPrice(state, round, previousAsk, buyerOffers);
  if (offer !== undefined && offer >= state.reservation && offer >= ask) {
    return { kind: 'accept', price: offer };
  }
  return { kind: 'counter', price: ask };
};
