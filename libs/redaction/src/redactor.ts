import { AllowedValues, ValueAllowance } from './allowed-values';
import { findCredentialAssignments, isCredentialName, isPlaceholder } from './credential-fields';
import { findCards, findEmails, findIbans, findPhones } from './personal-data';
import { emailMarkerLocalPart, Finding, markerPattern, Redaction, redactionMarker } from './redaction-kinds';
import { findSecrets } from './secret-rules';

/** A value as it may be stored, and what was taken out of it (kind and place only). */
export interface Redacted<T> {
  value: T;
  redactions: Redaction[];
}

const pointerStep = (key: string | number): string => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * An e-mail address keeps its domain and stays an address (`redacted-email@gmail.com`): a domain is no one's personal
 * data, and it is what a recipients rule judges (terms mailed to a personal webmail account), so redaction never hides
 * a violation; and a twin's record whose field the spec declares `format: email` still answers in its declared shape.
 */
const markerFor = (finding: Finding, text: string): string =>
  finding.kind === 'email'
    ? `${emailMarkerLocalPart}${text.slice(finding.start, finding.end).replace(/^[^@]*/, '')}`
    : redactionMarker(finding.kind);

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
  text.includes('[redacted:') || text.includes('redacted-email@')
    ? [...text.matchAll(markerPattern)].map((m) => [m.index, m.index + m[0].length])
    : [];

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

  /** The same redactor with what this allowance keeps also kept. */
  keeping(allowance: ValueAllowance): Redactor {
    return new Redactor(AllowedValues.union(this.allowed, allowance));
  }

  /** What in the text would be redacted, allowed values and existing markers left out, overlaps merged. */
  findings(text: string, secrets: Finding[] = text.length < 6 ? [] : findSecrets(text)): Finding[] {
    if (text.length < 6) {
      return [];
    }
    const markers = markerSpans(text);
    const found = [
      ...secrets,
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
    return this.replaced(text, this.findings(text), place);
  }

  private replaced(text: string, findings: Finding[], place: string): Redacted<string> {
    if (findings.length === 0) {
      return { value: text, redactions: [] };
    }
    let value = '';
    let at = 0;
    for (const finding of findings) {
      value += text.slice(at, finding.start) + markerFor(finding, text);
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
   * same object comes back when nothing was found (the common case costs no copy). secretlint reads all the strings
   * at once (a listing of fifty records is one pass, not fifty).
   */
  json<T>(value: T, place = ''): Redacted<T> {
    const leaves: Leaf[] = [];
    walkStrings(value, place, false, (leaf) => {
      leaves.push(leaf);
      return leaf.text;
    });
    if (leaves.length === 0) {
      return { value, redactions: [] };
    }
    const secrets = secretsByLeaf(leaves);
    const redactions: Redaction[] = [];
    const replacements = leaves.map((leaf, index) => {
      if (leaf.credential && !isPlaceholder(leaf.text) && !this.allowed.allows('credential', leaf.text)) {
        redactions.push({ kind: 'credential', place: leaf.place, detector: 'credential-name' });
        return redactionMarker('credential');
      }
      const redacted = this.replaced(leaf.text, this.findings(leaf.text, secrets[index]), leaf.place);
      redactions.push(...redacted.redactions);
      return redacted.value;
    });
    if (redactions.length === 0) {
      return { value, redactions };
    }
    let next = 0;
    const redacted = walkStrings(value, place, false, () => replacements[next++]) as T;
    return { value: redacted, redactions };
  }
}

interface Leaf {
  text: string;
  place: string;
  /** Under a field whose name says it holds a credential. */
  credential: boolean;
}

/** Visits every string of a JSON value in order, building a copy only where `visit` changes one. */
const walkStrings = (node: unknown, at: string, credential: boolean, visit: (leaf: Leaf) => string): unknown => {
  if (typeof node === 'string') {
    return visit({ text: node, place: at, credential });
  }
  if (Array.isArray(node)) {
    let changed = false;
    const items = node.map((item, index) => {
      const next = walkStrings(item, `${at}${pointerStep(index)}`, credential, visit);
      changed ||= next !== item;
      return next;
    });
    return changed ? items : node;
  }
  if (typeof node === 'object' && node !== null && !(node instanceof Date)) {
    let changed = false;
    const entries = Object.entries(node).map(([key, item]) => {
      const next = walkStrings(item, `${at}${pointerStep(key)}`, isCredentialName(key), visit);
      changed ||= next !== item;
      return [key, next] as const;
    });
    return changed ? Object.fromEntries(entries) : node;
  }
  return node;
};

/** Lines apart, so no rule's match runs from one string into the next. */
const leafSeparator = '\n\n';

/** secretlint over all the leaves at once, its findings handed back to the leaf each lies in. */
const secretsByLeaf = (leaves: Leaf[]): Finding[][] => {
  const starts: number[] = [];
  let length = 0;
  for (const leaf of leaves) {
    starts.push(length);
    length += leaf.text.length + leafSeparator.length;
  }
  const byLeaf: Finding[][] = leaves.map(() => []);
  if (!leaves.some((leaf) => leaf.text.length >= 6)) {
    return byLeaf;
  }
  for (const finding of findSecrets(leaves.map((leaf) => leaf.text).join(leafSeparator))) {
    // The last leaf starting at or before the finding holds it (clipped to it, should a rule run past its end).
    let index = starts.length - 1;
    while (index > 0 && starts[index] > finding.start) {
      index--;
    }
    const start = finding.start - starts[index];
    const end = Math.min(finding.end - starts[index], leaves[index].text.length);
    if (end > start) {
      byLeaf[index].push({ ...finding, start, end });
    }
  }
  return byLeaf;
};
