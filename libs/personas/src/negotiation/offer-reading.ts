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

/**
 * The terms a message states, read by the labels the scenario gives each issue: a number that follows a label (within
 * a few words without digits: `unit price: EUR 0.25`, `payment terms of 45 days`). The last mention of an issue counts;
 * a message that names no issue states nothing. No wording is built in: the labels are the scenario's.
 */
export const readOffer = (negotiation: Negotiation, text: string): Partial<Terms> => {
  const newest = newestPart(text);
  const offer: Partial<Terms> = {};
  for (const [name, issue] of Object.entries(negotiation.issues)) {
    for (const label of issue.says) {
      const pattern = new RegExp(`(?<![\\w])${escaped(label)}(?![\\w])[^\\d\\n]{0,16}?(\\d[\\d.,]*\\d|\\d)`, 'gi');
      const found = [...newest.matchAll(pattern)].pop();
      if (found) {
        offer[name] = numberOf(found[1]);
        break;
      }
    }
  }
  return offer;
};
