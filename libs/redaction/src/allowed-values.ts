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
    case 'name':
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

/** Adds the keys one value gives a comparison (none when it is not of that comparison's shape). */
const addKeys = (comparison: Comparison, value: string, keys: Set<string>): void => {
  if (comparison === 'whole') {
    keys.add(value);
  } else if (comparison === 'digits' ? numberLike.test(value) : comparison === 'code' && codeLike.test(value)) {
    keys.add(keyOf(comparison, value));
  } else if (comparison === 'address' && value.includes('@')) {
    for (const m of value.matchAll(embeddedEmails)) {
      keys.add(keyOf(comparison, m[0]));
    }
  }
};

/**
 * The world's own values: every string of the records, people and scenarios it was built from (synthetic by
 * construction, and what graders compare against). A value found in a message that is one of these stays; one that
 * is not (a real-looking card an agent typed) is redacted.
 */
export class AllowedValues implements ValueAllowance {
  static readonly none: ValueAllowance = { allows: () => false };

  /** The values' strings, trimmed, in the order they were walked or added. */
  private readonly values: string[] = [];
  /** Each comparison's keys, made from the first `scanned` values when that comparison is first asked for. */
  private readonly keys = new Map<Comparison, { keys: Set<string>; scanned: number }>();
  /** What is still to be walked (`walking` only) and the objects already walked (shared ones are walked once). */
  private readonly pending: unknown[] = [];
  private readonly seen = new Set<object>();

  /** Collects the strings of any plain data: objects, arrays, Maps and Sets (a world's tables), at any depth. */
  static of(...sources: unknown[]): AllowedValues {
    const allowed = AllowedValues.walking(...sources);
    while (allowed.walkOne()) {
      // walks everything now: the sources may change after (an episode's state)
    }
    return allowed;
  }

  /**
   * The same values, walked only as far as a question needs: a world holds tens of thousands of strings and the values
   * an episode's writes find are mostly its parties', which the walk meets first (the last source first). A value it
   * does not hold still walks everything, once. Only for sources that do not change after (a built world).
   */
  static walking(...sources: unknown[]): AllowedValues {
    const allowed = new AllowedValues();
    allowed.pending.push(...sources);
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
    }
  }

  /**
   * Keys are made per comparison (a world's writes mostly find addresses: the other comparisons' keys are mostly never
   * made) and only as far as the values are needed to find this one.
   */
  allows(kind: RedactionKind, text: string): boolean {
    const comparison = comparisonOf(kind);
    const key = keyOf(comparison, text);
    let made = this.keys.get(comparison);
    if (!made) {
      made = { keys: new Set(), scanned: 0 };
      this.keys.set(comparison, made);
    }
    if (made.keys.has(key)) {
      return true;
    }
    do {
      while (made.scanned < this.values.length) {
        addKeys(comparison, this.values[made.scanned++], made.keys);
        if (made.keys.has(key)) {
          return true;
        }
      }
    } while (this.walkOne());
    return false;
  }

  /** Walks on to the next string (and adds it); false when everything has been walked. */
  private walkOne(): boolean {
    while (this.pending.length > 0) {
      const value = this.pending.pop();
      if (typeof value === 'string') {
        this.add(value);
        return true;
      }
      if (typeof value === 'object' && value !== null && !this.seen.has(value)) {
        this.seen.add(value);
        if (value instanceof Map || value instanceof Set || Array.isArray(value)) {
          for (const item of value.values()) {
            this.pending.push(item);
          }
        } else {
          for (const item of Object.values(value)) {
            this.pending.push(item);
          }
        }
      }
    }
    // Everything is walked: the objects need not be held any longer.
    this.seen.clear();
    return false;
  }
}
