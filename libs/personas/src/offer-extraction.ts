/**
 * What a buyer's mail offers, read from free text: a unit price, a quantity, payment terms and a delivery time, each
 * when the text states one. Tolerant of how people write numbers (`0.21`, `0,21 €`, `EUR 0.21`, `21 cents`,
 * `5,000 units`, `net 45`, `45 days`); a price is taken only near the scale of the item (a fifth to five times
 * `expectedPrice`), so quantities and dates are not mistaken for prices.
 */
export interface ExtractedOffer {
  unitPrice?: number;
  quantity?: number;
  paymentTermsDays?: number;
  deliveryDays?: number;
}

/** A written number: `5,000` and `5.000` are thousands for a count; `0,21`, `0.285` and `1.250` stay decimals for a price. */
const number = (text: string, count = false): number => {
  const cleaned =
    count && /^\d{1,3}([.,]\d{3})+$/.test(text)
      ? text.replace(/[.,]/g, '')
      : text.replace(/,(?=\d{1,2}$)|,(?=\d+$)/, '.');
  return Number(cleaned.replace(/,/g, ''));
};

export const extractOffer = (text: string, expectedPrice: number): ExtractedOffer => {
  const offer: ExtractedOffer = {};
  const lower = text.toLowerCase();
  const near = (value: number) => value >= expectedPrice / 5 && value <= expectedPrice * 5;

  const prices: number[] = [];
  for (const match of lower.matchAll(
    /(?:€|eur|euro|usd|\$)\s*(\d+(?:[.,]\d+)?)|(\d+(?:[.,]\d+)?)\s*(?:€|eur\b|euros?\b)/g,
  )) {
    prices.push(number(match[1] ?? match[2]));
  }
  for (const match of lower.matchAll(/(\d+(?:[.,]\d+)?)\s*(?:cents?|ct)\b/g)) {
    prices.push(number(match[1]) / 100);
  }
  for (const match of lower.matchAll(
    /(\d+(?:[.,]\d+)?)\s*(?:per|\/|a|each)\s*(?:unit|piece|pc|bolt|pair|sensor|item)/g,
  )) {
    prices.push(number(match[1]));
  }
  const price = prices.filter(near).pop();
  if (price !== undefined) {
    offer.unitPrice = price;
  }

  const quantity = /(\d{1,3}(?:[.,]\d{3})+|\d+)\s*(?:units|pieces|pcs|bolts|pairs|sensors|items|x\b)/.exec(lower);
  if (quantity) {
    offer.quantity = number(quantity[1], true);
  }
  const terms = /net\s*(\d{1,3})|(\d{1,3})\s*days?\s*(?:payment|net|terms)|payment terms?\s*(?:of\s*)?(\d{1,3})/.exec(
    lower,
  );
  if (terms) {
    offer.paymentTermsDays = Number(terms[1] ?? terms[2] ?? terms[3]);
  }
  const delivery = /(?:deliver(?:y|ed)?|ship(?:ped|ping)?)\D{0,20}(\d{1,3})\s*(?:business\s*)?days?/.exec(lower);
  if (delivery) {
    offer.deliveryDays = Number(delivery[1]);
  }
  return offer;
};
