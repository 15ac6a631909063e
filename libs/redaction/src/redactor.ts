import { AllowedValues, ValueAllowance } from './allowed-values';
import { findCredentialAssignments, isCredentialName, isPlaceholder } from './credential-fields';
import { findCards, findEmails, findIbans, findPhones } from './personal-data';
import { Finding, markerPattern, Redaction, redactionMarker } from './redaction-kinds';
import { findSecrets } from './secret-rules';

/** A value as it may be stored, and what was taken out of it (kind and place only). */
export interface Redacted<T> {
  value: T;
  redactions: Redaction[];
}

const pointerStep = (key: string | number): string => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** Overlapping findings become one, the widest span's kind kept: a card inside a secret is the secret. */
const merged = (findings: Finding[]): Finding[] => {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const finding of sorted) {
    const last = out[out.length - 1];
    if (last && finding.start < last.end) {
      last.end = Math.max(last.end, finding.end);
    } else {
      out.push({ ...finding });
    }
  }
  return out;
};

/** Spans of markers already in a text: what was redacted once is not looked at again. */
const markerSpans = (text: string): [number, number][] =>
  text.includes('[redacted:') ? [...text.matchAll(markerPattern)].map((m) => [m.index, m.index + m[0].length]) : [];

/**
 * Finds secrets (secretlint's recommended rules, credential-named assignments) and personal data (e-mail addresses,
 * phone numbers, payment cards, IBANs) in text and JSON, and replaces each with a typed marker unless it is one of
 * the world's own values. Synchronous, so a log line and a twin's write can be redacted where they are made.
 */
export class Redactor {
  constructor(private readonly allowed: ValueAllowance = AllowedValues.none) {}

  /** The same redactor with these values also kept. */
  allowing(values: readonly string[]): Redactor {
    return new Redactor(AllowedValues.union(AllowedValues.of(values), this.allowed));
  }

  /** What in the text would be redacted, allowed values and existing markers left out, overlaps merged. */
  findings(text: string): Finding[] {
    if (text.length < 6) {
      return [];
    }
    const markers = markerSpans(text);
    const found = [
      ...findSecrets(text),
      ...findCredentialAssignments(text),
      ...findEmails(text),
      ...findPhones(text),
      ...findCards(text),
      ...findIbans(text),
    ].filter(
      (f) =>
        !markers.some(([start, end]) => f.start >= start && f.end <= end) &&
        !this.allowed.allows(f.kind, text.slice(f.start, f.end)),
    );
    return merged(found);
  }

  text(text: string, place = ''): Redacted<string> {
    const findings = this.findings(text);
    if (findings.length === 0) {
      return { value: text, redactions: [] };
    }
    let value = '';
    let at = 0;
    for (const finding of findings) {
      value += text.slice(at, finding.start) + redactionMarker(finding.kind);
      at = finding.end;
    }
    value += text.slice(at);
    return {
      value,
      redactions: findings.map((f) => ({ kind: f.kind, place: place === '' ? '/' : place, detector: f.detector })),
    };
  }

  /**
   * A JSON value with every string redacted, and a credential-named field's real-looking value replaced whole. The
   * same object comes back when nothing was found (the common case costs no copy).
   */
  json<T>(value: T, place = ''): Redacted<T> {
    const redactions: Redaction[] = [];
    const walk = (node: unknown, at: string, credential: boolean): unknown => {
      if (typeof node === 'string') {
        if (credential && !isPlaceholder(node) && !this.allowed.allows('credential', node)) {
          redactions.push({ kind: 'credential', place: at, detector: 'credential-name' });
          return redactionMarker('credential');
        }
        const redacted = this.text(node, at);
        redactions.push(...redacted.redactions);
        return redacted.value;
      }
      if (Array.isArray(node)) {
        let changed = false;
        const items = node.map((item, index) => {
          const next = walk(item, `${at}${pointerStep(index)}`, credential);
          changed ||= next !== item;
          return next;
        });
        return changed ? items : node;
      }
      if (typeof node === 'object' && node !== null && !(node instanceof Date)) {
        let changed = false;
        const entries = Object.entries(node).map(([key, item]) => {
          const next = walk(item, `${at}${pointerStep(key)}`, isCredentialName(key));
          changed ||= next !== item;
          return [key, next] as const;
        });
        return changed ? Object.fromEntries(entries) : node;
      }
      return node;
    };
    const redacted = walk(value, place, false) as T;
    return { value: redacted, redactions };
  }
}
