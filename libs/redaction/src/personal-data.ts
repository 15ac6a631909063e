import { findPhoneNumbersInText } from 'libphonenumber-js/max';

import type { Finding } from './redaction-kinds';

const emailPattern = /[A-Za-z0-9][A-Za-z0-9._%+-]*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b/g;

/**
 * Domains reserved for documentation and tests (RFC 2606, RFC 6761): an address there belongs to no one, so it is
 * never personal data. The synthetic company's own mail lives under `.example` for that reason.
 */
const reservedDomain = /(^|\.)(example|test|invalid|localhost|example\.(com|net|org))$/i;

export const isReservedEmail = (address: string): boolean =>
  reservedDomain.test(address.slice(address.lastIndexOf('@') + 1));

/**
 * A text that is only Message-IDs (`<id@host>`, RFC 5322), as a mail's `internetMessageId` or `References` is: ids a
 * mail server issued, not anyone's address.
 */
const messageIds = /^\s*(<[^<>\s@]+@[^<>\s@]+>\s*)+$/;

export const findEmails = (text: string): Finding[] =>
  messageIds.test(text)
    ? []
    : !text.includes('@')
      ? []
      : [...text.matchAll(emailPattern)]
          .filter((m) => !isReservedEmail(m[0]))
          .map((m) => ({ kind: 'email', start: m.index, end: m.index + m[0].length, detector: 'email-address' }));

/**
 * Phone numbers written with their country code (`+44 20 7946 0958`), valid by the full metadata of that country's
 * numbering plan. Numbers in a national form (`(212) 555-0123`) are not looked for: without knowing the country,
 * order numbers, amounts and Slack timestamps read as phone numbers too.
 */
export const findPhones = (text: string): Finding[] =>
  text.includes('+')
    ? findPhoneNumbersInText(text).map((found) => ({
        kind: 'phone',
        start: found.startsAt,
        end: found.endsAt,
        detector: 'libphonenumber',
      }))
    : [];

const luhnValid = (digits: string): boolean => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) {
        digit -= 9;
      }
    }
    sum += digit;
  }
  return sum % 10 === 0;
};

/** Issuer prefixes of the card schemes (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
const cardIssuer =
  /^(4|5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720)|3[47]|6011|65|64[4-9]|35(2[89]|[3-8]\d)|3(0[0-5]|[689])|62|5[06-8]|6\d)/;

// Not inside a word either: a made-up UUID or hash holds Luhn-valid runs of digits between its letters. Nor the first
// digits of a longer run: the count backtracks, so a digit right after the match must end it too (a digest that
// starts with 20 digits once lost its first 19 to a card).
const cardPattern = /(?<![\dA-Za-z.,-])\d(?:[ -]?\d){12,18}(?!\d|[.,]\d|-\d|[A-Za-z])/g;

/** Payment card numbers: 13 to 19 digits (grouped by spaces or dashes or not), a scheme's prefix, Luhn-valid. */
export const findCards = (text: string): Finding[] =>
  !/\d{4}/.test(text)
    ? []
    : [...text.matchAll(cardPattern)]
        .filter((m) => {
          const digits = m[0].replace(/[ -]/g, '');
          // One separator style throughout (`4539 1488 …`, `4539-1488-…`): a date or a range has mixed or none in runs.
          const separators = new Set(m[0].match(/[ -]/g) ?? []);
          return separators.size <= 1 && cardIssuer.test(digits) && luhnValid(digits);
        })
        .map((m) => ({ kind: 'card', start: m.index, end: m.index + m[0].length, detector: 'card-luhn' }));

/** IBAN lengths by country (ISO 13616 registry): a shape alone is not enough to call a code an account number. */
const ibanLengths: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};

const ibanPattern = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;

const mod97 = (code: string): number => {
  const rearranged = `${code.slice(4)}${code.slice(0, 4)}`;
  let remainder = 0;
  for (const char of rearranged) {
    const value = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of value) {
      remainder = (remainder * 10 + Number(digit)) % 97;
    }
  }
  return remainder;
};

/** IBANs (spaced in fours or not): a registered country's length and the ISO 7064 mod-97 check. */
export const findIbans = (text: string): Finding[] =>
  !/[A-Z]{2}\d{2}/.test(text)
    ? []
    : [...text.matchAll(ibanPattern)].flatMap((m) => {
        const compact = m[0].replace(/ /g, '');
        const length = ibanLengths[compact.slice(0, 2)];
        if (length === undefined || compact.length < length) {
          return [];
        }
        // A longer run may be an IBAN followed by more text ("… 3000 BIC"): keep the registered length's characters.
        let consumed = 0;
        let end = m.index;
        while (consumed < length) {
          if (m[0][end - m.index] !== ' ') {
            consumed++;
          }
          end++;
        }
        return mod97(compact.slice(0, length)) === 1
          ? [{ kind: 'iban' as const, start: m.index, end, detector: 'iban-mod97' }]
          : [];
      });
