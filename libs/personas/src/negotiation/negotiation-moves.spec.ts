import type { Negotiation } from '@libs/party-reactions';

import { negotiationMoves, NegotiationMove, openingTerms, orderOnTerms } from './negotiation-moves';
import { moveText } from './negotiation-text';
import { readOffer } from './offer-reading';

/** A seller of something at 10.00 with a floor of 8.00, fixed quantity and payment terms it wants short. */
const seller = (overrides: Partial<Negotiation> = {}): Negotiation => ({
  channel: 'mail',
  issues: {
    unit_price: { says: ['unit price', 'price'], unit: 'EUR', opening: 10, reservation: 8, decimals: 2 },
    quantity: { says: ['quantity'], opening: 100, reservation: 100, decimals: 0 },
    payment_days: {
      says: ['payment terms'],
      unit: 'days',
      opening: 30,
      reservation: 30,
      prefers: 'lower',
      decimals: 0,
    },
  },
  tactic: 'linear',
  patience: 4,
  walkAway: { insulting: 0.6, insults: 2, stalledAfter: 6 },
  ...overrides,
});

const kinds = (moves: (NegotiationMove | undefined)[]) => moves.map((move) => move?.kind);
const price = (move: NegotiationMove | undefined) => (move && move.kind !== 'walk-away' ? move.terms.unit_price : NaN);

describe(negotiationMoves.name, () => {
  it('concedes linearly from its opening to its floor by its deadline, and accepts the floor then', () => {
    const moves = negotiationMoves(seller(), [
      { unit_price: 8 },
      { unit_price: 8 },
      { unit_price: 8 },
      { unit_price: 8 },
    ]);
    expect(moves.slice(0, 3).map(price)).toEqual([9.5, 9, 8.5]);
    expect(moves[3]).toEqual({ kind: 'accept', terms: { unit_price: 8, quantity: 100, payment_days: 30 } });
  });

  it('holds out as boulware and gives early as conceder, by the same clock', () => {
    const offers = [{ unit_price: 7 }, { unit_price: 7 }];
    const boulware = negotiationMoves(seller({ tactic: 'boulware' }), offers).map(price);
    const conceder = negotiationMoves(seller({ tactic: 'conceder' }), offers).map(price);
    expect(boulware[0]).toBeGreaterThan(9.9);
    expect(conceder[0]).toBeLessThan(9);
    expect(conceder[1]).toBeLessThan(boulware[1]);
  });

  it('mirrors the counterpart as tit-for-tat: a big step answered by a big step', () => {
    const moves = negotiationMoves(seller({ tactic: 'tit-for-tat' }), [{ unit_price: 6.2 }, { unit_price: 8 }]);
    expect(price(moves[0])).toBe(9.7);
    expect(moves[1]).toMatchObject({ kind: 'accept', terms: { unit_price: 8 } });
    const stubborn = negotiationMoves(seller({ tactic: 'tit-for-tat' }), [{ unit_price: 7 }, { unit_price: 7 }]);
    expect(price(stubborn[1])).toBe(price(stubborn[0]));
  });

  it('never goes below its floor, and never accepts under it', () => {
    const moves = negotiationMoves(seller({ tactic: 'conceder' }), Array(6).fill({ unit_price: 7.99 }));
    expect(kinds(moves)).not.toContain('accept');
    expect(Math.min(...moves.filter((m) => m?.kind === 'counter').map(price))).toBe(8);
  });

  it('does not take a request that names no price for a yes, nor terms it does not want on a fixed issue', () => {
    expect(kinds(negotiationMoves(seller(), [{ quantity: 100 }]))).toEqual(['counter']);
    // Longer payment terms are worse for it; shorter ones are fine.
    const longer = negotiationMoves(seller({ patience: 1 }), [{ unit_price: 9, payment_days: 60 }]);
    expect(longer[0]).toMatchObject({ kind: 'counter', terms: { payment_days: 30 } });
    const shorter = negotiationMoves(seller({ patience: 1 }), [{ unit_price: 9, payment_days: 10 }]);
    expect(shorter[0]).toMatchObject({ kind: 'accept', terms: { payment_days: 10 } });
    // A fixed quantity must be met exactly.
    expect(negotiationMoves(seller({ patience: 1 }), [{ unit_price: 9, quantity: 90 }])[0]?.kind).toBe('counter');
  });

  it('walks away after being insulted twice, or when the talks stall past its limit, and says nothing more', () => {
    expect(kinds(negotiationMoves(seller(), [{ unit_price: 4 }, { unit_price: 4 }, { unit_price: 9 }]))).toEqual([
      'counter',
      'walk-away',
      undefined,
    ]);
    const stalled = negotiationMoves(seller({ walkAway: { insulting: 0.6, insults: 2, stalledAfter: 2 } }), [
      { unit_price: 7 },
      { unit_price: 7 },
      { unit_price: 7 },
    ]);
    expect(stalled[2]).toEqual({ kind: 'walk-away', reason: 'stalled' });
  });

  it('bargains for a buyer too: wanting a number low, it concedes upward', () => {
    const buyer = seller({
      issues: { unit_price: { says: ['unit price'], opening: 6, reservation: 9, decimals: 2 } },
    });
    const moves = negotiationMoves(buyer, [
      { unit_price: 12 },
      { unit_price: 9 },
      { unit_price: 9 },
      { unit_price: 9 },
    ]);
    expect(price(moves[0])).toBe(6.75);
    expect(moves[3]).toMatchObject({ kind: 'accept', terms: { unit_price: 9 } });
  });
});

describe(orderOnTerms.name, () => {
  const negotiation = seller();
  it('honours an order on a position it took, at a price at least as good for it', () => {
    const positions = [openingTerms(negotiation), { unit_price: 8.5, quantity: 100, payment_days: 30 }];
    expect(orderOnTerms(negotiation, positions, { unit_price: 8.5, quantity: 100, payment_days: 30 })).toMatchObject({
      agreed: true,
    });
    expect(orderOnTerms(negotiation, positions, { unit_price: 9, quantity: 100 })).toMatchObject({ agreed: true });
  });

  it('refuses one below every position it took, saying why against its last, and any after it walked away', () => {
    const positions = [{ unit_price: 8.5, quantity: 100, payment_days: 30 }];
    expect(orderOnTerms(negotiation, positions, { unit_price: 8.4, quantity: 100, payment_days: 45 })).toEqual({
      agreed: false,
      reasons: [
        'the unit price of 8.40 EUR is not the 8.50 EUR we stated',
        'the payment terms of 45 days is not the 30 days we stated',
      ],
    });
    expect(orderOnTerms(negotiation, [], { unit_price: 10 })).toMatchObject({ agreed: false });
  });
});

describe(readOffer.name, () => {
  const negotiation = seller();
  it('reads each issue by the labels the scenario gives, as people write numbers, the last mention counting', () => {
    expect(
      readOffer(negotiation, 'Our offer: unit price EUR 8,75 for quantity 100, payment terms of 45 days. Price: 8.80'),
    ).toEqual({ unit_price: 8.75, quantity: 100, payment_days: 45 });
    expect(readOffer(negotiation, 'Could you quote a quantity of 1,000?')).toEqual({ quantity: 1000 });
    // A figure before its label, with the issue's unit between, as a buyer writes it.
    expect(readOffer(negotiation, 'We can offer 8.10 EUR unit price for quantity 100, net 30 days')).toEqual({
      unit_price: 8.1,
      quantity: 100,
    });
  });

  it('ignores what it said itself, quoted under the reply, and text with no label', () => {
    const reply = 'Thank you, unit price 8.90.\n\n-----Original Message-----\nunit price: 9.50 EUR\nquantity: 100';
    expect(readOffer(negotiation, reply)).toEqual({ unit_price: 8.9 });
    expect(readOffer(negotiation, 'See you at 10:30 on the 12th')).toEqual({});
  });

  it('reads back every figure it writes itself', () => {
    const counter = { kind: 'counter' as const, terms: { unit_price: 9.25, quantity: 100, payment_days: 30 } };
    expect(readOffer(negotiation, moveText(negotiation, counter, 'Ann'))).toEqual(counter.terms);
  });
});
