import { Redactor } from '@libs/redaction';

/**
 * Sample data may hold secrets and personal data. Such fields are recognised by name or by value and only their
 * kind is kept ("redacted: looks like email addresses"), so nothing of them reaches the model, the database or a
 * world.
 */
const secretNames =
  /(pass(word)?|secret|token|api[_-]?key|auth(orization)?|credential|private[_-]?key|ssn|social[_-]?security|iban|card[_-]?number|cvv|pin)$/i;
const personalNames =
  /(^|_)(e?mail|phone|mobile|first[_-]?name|last[_-]?name|full[_-]?name|surname|address|street|birth|dob|passport)(_|$)/i;

const valuePatterns: [RegExp, string][] = [
  [/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i, 'email addresses'],
  [/^(?:\d[ -]?){13,19}$/, 'card-like numbers'],
  [/^\+?[\d\s().-]{7,}$/, 'phone numbers'],
  [/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/, 'JSON web tokens'],
  [/^(sk|pk|xox[abp]|ghp|AKIA)[\w-]{10,}$/, 'API keys'],
  [/^(\d{1,3}\.){3}\d{1,3}$/, 'IP addresses'],
];

export const redactionReason = (field: string, values: unknown[]): string | undefined => {
  const key = field.replace(/([a-z])([A-Z])/g, '$1_$2');
  if (secretNames.test(key)) {
    return 'its name says it holds a secret';
  }
  if (personalNames.test(key)) {
    return 'its name says it holds personal data';
  }
  const strings = values.filter((v): v is string => typeof v === 'string' && v !== '');
  if (strings.length === 0) {
    return undefined;
  }
  for (const [pattern, what] of valuePatterns) {
    if (strings.filter((v) => pattern.test(v.trim())).length >= Math.max(1, strings.length / 2)) {
      return `its values look like ${what}`;
    }
  }
  // Any one value holding a secret or personal data (a card in a category, an address in a note) spoils the field:
  // a category keeps its values, and prose its words.
  const [found] = new Redactor().json(strings).redactions;
  return found
    ? `a value holds ${found.kind === 'iban' ? 'an IBAN' : `a ${found.kind}`} (${found.detector})`
    : undefined;
};
