import { askingPrice, clampTerms, ConcessionState, decideApproval, extractOffer, sellerMove, termsMultiplier } from '.';

const state = (strategy: ConcessionState['strategy']): ConcessionState => ({
  strategy,
  opening: 0.3,
  reservation: 0.24,
  rounds: 6,
});

describe('supplier concession tactics', () => {
  it('concede slowly (Boulware), evenly (linear) or early (conceder), never below the reservation price', () => {
    const path = (strategy: ConcessionState['strategy']) =>
      [1, 2, 3, 4, 5, 6, 7].map((round) => askingPrice(state(strategy), round, 0.3, []));
    const boulware = path('boulware');
    const linear = path('linear');
    const conceder = path('conceder');
    expect(boulware[1]).toBeGreaterThan(linear[1]);
    expect(linear[1]).toBeGreaterThan(conceder[1]);
    for (const prices of [boulware, linear, conceder]) {
      expect(prices.every((p, i) => i === 0 || p <= prices[i - 1])).toBe(true);
      expect(prices[prices.length - 1]).toBe(0.24);
    }
  });

  it('mirrors the buyer under tit-for-tat', () => {
    const tft = state('tit-for-tat');
    expect(askingPrice(tft, 2, 0.29, [0.2, 0.22])).toBe(0.27);
    expect(askingPrice(tft, 3, 0.27, [0.22, 0.22])).toBe(0.27);
    expect(askingPrice(tft, 4, 0.25, [0.22, 0.3])).toBe(0.24);
  });

  it('accepts an offer that meets its next ask, walks away when insulted twice or stalled', () => {
    expect(sellerMove(state('linear'), 3, 0.28, [0.27], 0)).toEqual({ kind: 'accept', price: 0.27 });
    expect(sellerMove(state('linear'), 1, 0.3, [0.25], 0)).toEqual({ kind: 'counter', price: 0.29 });
    expect(sellerMove(state('linear'), 2, 0.29, [0.1], 1)).toEqual({ kind: 'walk-away', reason: 'insulted' });
    expect(sellerMove(state('boulware'), 9, 0.25, [0.2], 0)).toEqual({ kind: 'walk-away', reason: 'stalled' });
  });
});

describe(extractOffer.name, () => {
  it.each([
    [
      'We can pay 0.22 EUR per bolt for 5,000 bolts, net 45.',
      { unitPrice: 0.22, quantity: 5000, paymentTermsDays: 45 },
    ],
    ['Our offer: €0,21 each, delivery in 10 business days', { unitPrice: 0.21, deliveryDays: 10 }],
    ['Would 23 cents work? We need 8000 units.', { unitPrice: 0.23, quantity: 8000 }],
    ['Thanks! Let me check with the team on 12 June.', {}],
    [
      'We cannot go that low, but we can offer 0.285 EUR per unit for 5,000 units',
      { unitPrice: 0.285, quantity: 5000 },
    ],
  ])('%s', (text, expected) => {
    expect(extractOffer(text, 0.28)).toEqual(expected);
  });
});

describe(decideApproval.name, () => {
  it('approves within the limit, and a strict approver only at or under target', () => {
    const base = { total: 2000, unitPrice: 0.25, targetPrice: 0.26, approvalLimit: 25_000 };
    expect(decideApproval({ ...base, strictness: 'lenient' }).kind).toBe('approve');
    expect(decideApproval({ ...base, strictness: 'strict', unitPrice: 0.27 })).toMatchObject({
      kind: 'reject',
      reasonCode: 'over_target',
    });
    expect(decideApproval({ ...base, strictness: 'lenient', total: 30_000 })).toMatchObject({
      kind: 'reject',
      reasonCode: 'over_limit',
    });
  });
});

describe('multi-issue terms', () => {
  const standard = { paymentTermsDays: 30, deliveryDays: 10, quantity: 5000 };

  it('prices longer payment terms, faster delivery and volume against the standard terms', () => {
    expect(termsMultiplier(standard, standard)).toBe(1);
    expect(termsMultiplier({ ...standard, paymentTermsDays: 60 }, standard)).toBeCloseTo(1.015, 6);
    expect(termsMultiplier({ ...standard, deliveryDays: 7 }, standard)).toBeCloseTo(1.024, 6);
    expect(termsMultiplier({ ...standard, quantity: 7500 }, standard)).toBeCloseTo(0.95, 6);
  });

  it('holds a buyer to what the seller can do at all', () => {
    expect(clampTerms({ paymentTermsDays: 120, deliveryDays: 1 }, standard)).toEqual({
      paymentTermsDays: 90,
      deliveryDays: 5,
      quantity: 5000,
    });
  });
});
