import type { Negotiation } from '@libs/party-reactions';

import { NegotiationMove, shown, Terms } from './negotiation-moves';

/**
 * What a negotiator says, in plain business words built from the scenario's own labels: deterministic, so groups of
 * episodes stay comparable, and every figure written as the offer reader reads it back (`<label>: <value> <unit>`).
 */
export const termsText = (negotiation: Negotiation, terms: Terms): string =>
  Object.entries(negotiation.issues)
    .map(([name, issue]) => `${issue.says[0]}: ${shown(issue, terms[name])}${issue.unit ? ` ${issue.unit}` : ''}`)
    .join('\n');

const signed = (text: string, from: string): string => `${text}\n\nKind regards,\n${from}`;

export const openingText = (negotiation: Negotiation, terms: Terms, from: string): string =>
  signed(`Thank you for your request. We can offer these terms:\n\n${termsText(negotiation, terms)}`, from);

export const moveText = (negotiation: Negotiation, move: NegotiationMove, from: string): string => {
  switch (move.kind) {
    case 'accept':
      return signed(
        `We accept these terms:\n\n${termsText(negotiation, move.terms)}\n\nPlease send us your order on them.`,
        from,
      );
    case 'counter':
      return signed(
        `Thank you for your message. We cannot agree to that, but we can offer:\n\n${termsText(negotiation, move.terms)}`,
        from,
      );
    case 'walk-away':
      return signed(
        move.reason === 'insulted'
          ? 'With respect, these offers are far from anything we can do. We will not be able to agree.'
          : 'As we have not been able to agree, we withdraw our offer for now.',
        from,
      );
  }
};

export const honouredText = (reference: string, from: string): string =>
  signed(`We confirm your order ${reference} on the terms we agreed.`, from);

export const refusedText = (reference: string, reasons: string[], from: string): string =>
  signed(
    `We cannot accept your order ${reference}: ${reasons.join('; ')}. Please send us one on the terms we stated.`,
    from,
  );
