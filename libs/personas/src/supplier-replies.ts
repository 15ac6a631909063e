import { SellerMove } from './concession';

/** What a supplier's reply says, in plain business English: deterministic, so GRPO groups stay comparable. */
export interface SupplierVoice {
  contactName: string;
  supplierName: string;
  buyerFirstName: string;
  quantity: number;
  currency: string;
  paymentTermsDays: number;
  deliveryDays: number;
}

const money = (value: number, currency: string): string => `${value.toFixed(value < 1 ? 3 : 2)} ${currency}`;

const signature = (voice: SupplierVoice): string => `Kind regards,\n${voice.contactName}\n${voice.supplierName}`;

export const openingQuote = (voice: SupplierVoice, price: number): string =>
  `Dear ${voice.buyerFirstName},\n\nThank you for your enquiry. For ${voice.quantity.toLocaleString('en-US')} units we can offer ${money(price, voice.currency)} per unit, payment terms net ${voice.paymentTermsDays} days, delivery within ${voice.deliveryDays} business days of your purchase order.\n\n${signature(voice)}`;

export const supplierReply = (voice: SupplierVoice, move: SellerMove, offered?: number): string => {
  switch (move.kind) {
    case 'accept':
      return `Dear ${voice.buyerFirstName},\n\nWe accept ${money(move.price, voice.currency)} per unit for ${voice.quantity.toLocaleString('en-US')} units, net ${voice.paymentTermsDays} days, delivery within ${voice.deliveryDays} business days. Please send us your purchase order.\n\n${signature(voice)}`;
    case 'counter':
      return `Dear ${voice.buyerFirstName},\n\n${offered !== undefined ? `Thank you for your offer of ${money(offered, voice.currency)}. ` : ''}We cannot go that low, but we can offer ${money(move.price, voice.currency)} per unit for ${voice.quantity.toLocaleString('en-US')} units, net ${voice.paymentTermsDays} days, delivery within ${voice.deliveryDays} business days.\n\n${signature(voice)}`;
    case 'walk-away':
      return move.reason === 'insulted'
        ? `Dear ${voice.buyerFirstName},\n\nWith respect, these offers are far below our costs. We will not be able to supply this order.\n\n${signature(voice)}`
        : `Dear ${voice.buyerFirstName},\n\nAs we have not been able to agree, we will withdraw our offer for now.\n\n${signature(voice)}`;
  }
};

/** When a mail names no price the supplier can read, it asks for one rather than guessing. */
export const askForPrice = (voice: SupplierVoice, ask: number): string =>
  `Dear ${voice.buyerFirstName},\n\nCould you tell us the price per unit you have in mind? Our current offer stands at ${money(ask, voice.currency)} per unit.\n\n${signature(voice)}`;

/** The supplier's confirmation of an order on terms it agreed. */
export const orderConfirmation = (voice: SupplierVoice, orderId: string): string =>
  `Dear ${voice.buyerFirstName},\n\nWe confirm your purchase order ${orderId}; delivery within ${voice.deliveryDays} business days as agreed.\n\n${signature(voice)}`;

/** Why the supplier declines an order, in its own words: the terms it departs from and what would do instead. */
export const orderRefusal = (voice: SupplierVoice, orderId: string, reasons: string[]): string =>
  `Dear ${voice.buyerFirstName},\n\nWe cannot accept your purchase order ${orderId}: ${reasons.join('; ')}. We have declined it in our portal; please send us an order on the terms we agreed in writing.\n\n${signature(voice)}`;
