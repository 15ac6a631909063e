import { addBusinessDays } from '@libs/workflow-contracts';

/** A supplier's quote as the ERP records it: a price it offered or accepted in writing, with its terms. */
export interface WrittenQuote {
  id: string;
  status: string;
  lines: { quantity: number; unit_price: number }[];
  payment_terms_days: number;
  /** Business days from the purchase order's date. */
  delivery_days: number;
  created_at: string;
}

/** What a purchase order asks of the supplier. */
export interface PlacedOrder {
  id: string;
  created_at: string;
  lines: { quantity: number; unit_price: number }[];
  payment_terms_days?: number;
  delivery_date?: string | null;
}

export type Agreement = { agreed: true; quote: WrittenQuote } | { agreed: false; reasons: string[] };

/** A quote the supplier still stands by: not withdrawn, and not declined by the buyer when it awarded another. */
const standing = (quote: WrittenQuote): boolean => quote.status === 'received' || quote.status === 'accepted';

const price = (value: number): string => value.toFixed(value < 1 ? 3 : 2);
const quantityOf = (lines: { quantity: number }[]): number => lines.reduce((sum, l) => sum + l.quantity, 0);
/** Prices compare at the ERP's precision (four decimals), so 0.25 and 0.2500000001 are one price. */
const cents = (value: number): number => Math.round(value * 10_000);

/** Why this order is not on the terms of this quote; empty when it is. */
const departures = (order: PlacedOrder, quote: WrittenQuote, currency: string): string[] => {
  const reasons: string[] = [];
  const ordered = quantityOf(order.lines);
  const quoted = quantityOf(quote.lines);
  if (ordered !== quoted) {
    reasons.push(`the order is for ${ordered} units, our quote ${quote.id} for ${quoted}`);
  }
  const asked = Math.max(...quote.lines.map((l) => l.unit_price));
  const offered = Math.min(...order.lines.map((l) => l.unit_price));
  if (cents(offered) < cents(asked)) {
    reasons.push(`the unit price of ${price(offered)} ${currency} is below the ${price(asked)} ${currency} we quoted`);
  }
  const terms = order.payment_terms_days;
  if (terms !== undefined && terms > quote.payment_terms_days) {
    reasons.push(`payment at net ${terms} days is longer than the net ${quote.payment_terms_days} days we agreed`);
  }
  if (order.delivery_date) {
    // From the order's date, or the quote's when the order was drafted before it: lead time is not back-dated.
    const from = Math.max(Date.parse(order.created_at), Date.parse(quote.created_at));
    const earliest = new Date(addBusinessDays(from, quote.delivery_days)).toISOString().slice(0, 10);
    if (order.delivery_date < earliest) {
      reasons.push(
        `delivery by ${order.delivery_date} is sooner than the ${quote.delivery_days} business days we agreed (${earliest} at the earliest)`,
      );
    }
  }
  return reasons;
};

/**
 * Whether an order is on terms the supplier agreed in writing: a standing quote of its own whose quantity the order
 * takes, whose price it pays at least, with payment terms no longer and delivery no sooner than quoted. The quote
 * found is the one the order is on: the highest-priced that fits (nearest the order's price); when none fits, the
 * reasons are measured against the supplier's latest quote.
 */
export const orderAgreement = (order: PlacedOrder, quotes: WrittenQuote[], currency: string): Agreement => {
  const open = quotes.filter(standing);
  if (open.length === 0) {
    return { agreed: false, reasons: ['we have not quoted a price for it in writing'] };
  }
  const fitting = open
    .filter((quote) => departures(order, quote, currency).length === 0)
    .sort((a, b) => Math.max(...b.lines.map((l) => l.unit_price)) - Math.max(...a.lines.map((l) => l.unit_price)));
  if (fitting.length > 0) {
    return { agreed: true, quote: fitting[0] };
  }
  return { agreed: false, reasons: departures(order, open[open.length - 1], currency) };
};
