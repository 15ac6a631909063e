import { orderAgreement, PlacedOrder, WrittenQuote } from '.';

const quote = (id: string, unitPrice: number, extra: Partial<WrittenQuote> = {}): WrittenQuote => ({
  id,
  status: 'received',
  lines: [{ quantity: 5000, unit_price: unitPrice }],
  payment_terms_days: 30,
  delivery_days: 10,
  created_at: '2026-05-29T15:00:00.000Z',
  ...extra,
});

/** Placed on Monday 2026-06-01 09:00: ten business days on is Monday 2026-06-15. */
const order = (unitPrice: number, extra: Partial<PlacedOrder> = {}): PlacedOrder => ({
  id: 'PO-1',
  created_at: '2026-06-01T09:00:00.000Z',
  lines: [{ quantity: 5000, unit_price: unitPrice }],
  payment_terms_days: 30,
  delivery_date: '2026-06-15',
  ...extra,
});

describe(orderAgreement.name, () => {
  it('finds the standing quote the order is on: the nearest below its price whose terms it meets', () => {
    const found = orderAgreement(order(0.25), [quote('Q-1', 0.27), quote('Q-2', 0.25), quote('Q-3', 0.24)], 'EUR');
    expect(found).toEqual({ agreed: true, quote: expect.objectContaining({ id: 'Q-2' }) });
  });

  it('refuses a price nobody quoted, saying what was quoted', () => {
    expect(orderAgreement(order(0.15), [quote('Q-1', 0.25)], 'EUR')).toEqual({
      agreed: false,
      reasons: ['the unit price of 0.150 EUR is below the 0.250 EUR we quoted'],
    });
    expect(orderAgreement(order(0.25), [], 'EUR')).toEqual({
      agreed: false,
      reasons: ['we have not quoted a price for it in writing'],
    });
  });

  it('refuses longer payment terms, sooner delivery and another quantity than agreed', () => {
    const refused = orderAgreement(
      order(0.25, {
        payment_terms_days: 60,
        delivery_date: '2026-06-02',
        lines: [{ quantity: 9000, unit_price: 0.25 }],
      }),
      [quote('Q-1', 0.25)],
      'EUR',
    );
    expect(refused.agreed).toBe(false);
    expect(!refused.agreed && refused.reasons).toEqual([
      'the order is for 9000 units, our quote Q-1 for 5000',
      'payment at net 60 days is longer than the net 30 days we agreed',
      'delivery by 2026-06-02 is sooner than the 10 business days we agreed (2026-06-15 at the earliest)',
    ]);
    expect(orderAgreement(order(0.25, { delivery_date: null }), [quote('Q-1', 0.25)], 'EUR').agreed).toBe(true);
    // A draft raised before the quote does not back-date the lead time.
    const later = quote('Q-2', 0.25, { created_at: '2026-06-03T09:00:00.000Z' });
    expect(orderAgreement(order(0.25), [later], 'EUR').agreed).toBe(false);
    expect(orderAgreement(order(0.25, { delivery_date: '2026-06-17' }), [later], 'EUR').agreed).toBe(true);
  });

  it('does not hold the supplier to an offer it withdrew or the buyer declined', () => {
    const gone = [quote('Q-1', 0.25, { status: 'withdrawn' }), quote('Q-2', 0.25, { status: 'declined' })];
    expect(orderAgreement(order(0.25), gone, 'EUR').agreed).toBe(false);
  });
});
