import type { Negotiation } from '@libs/party-reactions';

import type { Terms } from './negotiation-moves';

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A written number: `0,21`, `0.285`, `5,000` and `5.000` (thousands) as people write them. */
const numberOf = (text: string): number =>
  /^\d{1,3}([.,]\d{3})+$/.test(text) && !/^0[.,]/.test(text)
    ? Number(text.replace(/[.,]/g, ''))
    : Number(text.replace(',', '.'));

/** What the counterpart wrote this time: the text above a quoted original. */
export const newestPart = (text: string): string =>
  text
    .split(/-----Original Message-----/)[0]
    .split('\n')
    .filter((line) => !line.startsWith('>'))
    .join('\n');

const written = '(\\d[\\d.,]*\\d|\\d)';

/**
 * The terms a message states, read by the labels the scenario gives each issue: a number right before a label, with
 * at most the issue's unit between (`0.25 EUR per unit`, `5,000 units`), else one that follows a label within a few
 * words without digits (`unit price: EUR 0.25`, `payment terms of 45 days`). The last mention of an issue counts; a
 * message that names no issue states nothing. No wording is built in: the labels and units are the scenario's.
 */
export const readOffer = (negotiation: Negotiation, text: string): Partial<Terms> => {
  const newest = newestPart(text);
  const offer: Partial<Terms> = {};
  for (const [name, issue] of Object.entries(negotiation.issues)) {
    const unit = issue.unit ? `(?:${escaped(issue.unit)}[ \\t]*)?` : '';
    for (const label of issue.says) {
      const word = `(?<![\\w])${escaped(label)}(?![\\w])`;
      const before = [...newest.matchAll(new RegExp(`${written}[ \\t]*${unit}${word}`, 'gi'))].pop();
      const after = [...newest.matchAll(new RegExp(`${word}[^\\d\\n]{0,16}?${written}`, 'gi'))].pop();
      const found = before ?? after;
      if (found) {
        offer[name] = numberOf(found[1]);
        break;
      }
    }
  }
  return offer;
};
