import type { RedactionKind } from './redaction-kinds';

/** The kinds compared the same way: a phone number and a card both by their digits, a secret and a credential whole. */
type Comparison = 'address' | 'digits' | 'code' | 'whole';

const comparisonOf = (kind: RedactionKind): Comparison => {
  switch (kind) {
    case 'email':
      return 'address';
    case 'phone':
    case 'card':
      return 'digits';
    case 'iban':
      return 'code';
    case 'secret':
    case 'credential':
      return 'whole';
  }
};

/** What a found value is compared by: the same address in any case, the same number however it is grouped. */
const keyOf = (comparison: Comparison, text: string): string => {
  switch (comparison) {
    case 'address':
      return text.trim().toLowerCase();
    case 'digits':
      return text.replace(/\D/g, '');
    case 'code':
      return text.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
    case 'whole':
      return text.trim();
  }
};

const embeddedEmails = /[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9.-]+\.[A-Za-z]{2,24}/g;
const numberLike = /^[\d\s+().-]{7,40}$/;
const codeLike = /^[A-Za-z]{2}\d{2}[A-Za-z0-9 ]{11,40}$/;

/** Answers whether a found value is one the world made, so it stays. */
export interface ValueAllowance {
  allows(kind: RedactionKind, text: string): boolean;
}

/**
 * The world's own values: every string of the records, people and scenarios it was built from (synthetic by
 * construction, and what graders compare against). A value found in a message that is one of these stays; one that
 * is not (a real-looking card an agent typed) is redacted.
 */
export class AllowedValues implements ValueAllowance {
  static readonly none: ValueAllowance = { allows: () => false };

  /** The values' strings, trimmed; each comparison's keys are made from them when it is first asked for. */
  private readonly values: string[] = [];
  private readonly keys = new Map<Comparison, Set<string>>();

  /** Collects the strings of any plain data: objects, arrays, Maps and Sets (a world's tables), at any depth. */
  static of(...sources: unknown[]): AllowedValues {
    const allowed = new AllowedValues();
    const seen = new Set<object>();
    const stack: unknown[] = [...sources];
    while (stack.length > 0) {
      const value = stack.pop();
      if (typeof value === 'string') {
        allowed.add(value);
      } else if (typeof value === 'object' && value !== null && !seen.has(value)) {
        seen.add(value);
        if (value instanceof Map || value instanceof Set || Array.isArray(value)) {
          for (const item of value.values()) {
            stack.push(item);
          }
        } else {
          for (const item of Object.values(value)) {
            stack.push(item);
          }
        }
      }
    }
    return allowed;
  }

  /** Several allowances at once, the costly ones asked last. */
  static union(...allowances: ValueAllowance[]): ValueAllowance {
    return { allows: (kind, text) => allowances.some((allowance) => allowance.allows(kind, text)) };
  }

  /** An allowance built only when first asked: most texts have nothing to ask about. */
  static lazy(build: () => ValueAllowance): ValueAllowance {
    let built: ValueAllowance | undefined;
    return {
      allows: (kind, text) => {
        built ??= build();
        return built.allows(kind, text);
      },
    };
  }

  add(value: string): void {
    const trimmed = value.trim();
    if (trimmed !== '') {
      this.values.push(trimmed);
      this.keys.clear();
    }
  }

  allows(kind: RedactionKind, text: string): boolean {
    const comparison = comparisonOf(kind);
    return this.keysFor(comparison).has(keyOf(comparison, text));
  }

  /**
   * The keys of one comparison. A world holds thousands of strings and an episode's writes mostly find addresses: the
   * keys of the other comparisons are never made (this was most of the cost of redacting an episode's first write).
   */
  private keysFor(comparison: Comparison): Set<string> {
    let keys = this.keys.get(comparison);
    if (!keys) {
      keys = new Set();
      for (const value of this.values) {
        if (comparison === 'whole') {
          keys.add(value);
        } else if (comparison === 'digits' ? numberLike.test(value) : comparison === 'code' && codeLike.test(value)) {
          keys.add(keyOf(comparison, value));
        } else if (comparison === 'address' && value.includes('@')) {
          for (const m of value.matchAll(embeddedEmails)) {
            keys.add(keyOf(comparison, m[0]));
          }
        }
      }
      this.keys.set(comparison, keys);
    }
    return keys;
  }
}
