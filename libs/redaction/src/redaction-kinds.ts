/**
 * What a redaction replaced: a credential by a maintained secret rule or by its field's name, or personal data (a
 * `name` only where the place says it is a person's, such as a spec's contact: no detector tells a name by its text).
 */
export const redactionKinds = ['secret', 'credential', 'email', 'phone', 'card', 'iban', 'name'] as const;
export type RedactionKind = (typeof redactionKinds)[number];

/** A span of text a detector found, before the allowed values are taken out. */
export interface Finding {
  kind: RedactionKind;
  start: number;
  end: number;
  /** Which detector found it (a secretlint rule id, `credential-name`, `luhn` …): for the record, never the value. */
  detector: string;
}

/**
 * A redaction as it is recorded beside what was redacted: its kind and where (a JSON pointer inside the stored value,
 * after the caller's own place), never the value nor its length.
 */
export interface Redaction {
  kind: RedactionKind;
  place: string;
  detector: string;
}

/**
 * What stands in for a redacted value: its kind only, so neither the value nor its length is kept (an e-mail address
 * is the exception: it becomes `redacted-email@` its own domain, see `emailMarkerLocalPart`).
 */
export const redactionMarker = (kind: RedactionKind): string => `[redacted:${kind}]`;

/** What a redacted e-mail address keeps before its domain: still an address, so a field's `format: email` holds. */
export const emailMarkerLocalPart = 'redacted-email';

/** A marker already in a text: redacting it again changes nothing. */
export const markerPattern =
  /\[redacted:(?:secret|credential|email|phone|card|iban|name)\]|\bredacted-email@[A-Za-z0-9.-]*[A-Za-z0-9]/g;

/** Whether a value holds a redaction marker: what it stood for is gone, so it is no example of anything. */
export const isRedacted = (value: unknown): boolean =>
  new RegExp(markerPattern.source).test(JSON.stringify(value) ?? '');
