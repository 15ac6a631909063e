import type { RedactionKind } from './redaction-kinds';

/** What a found value is compared by: the same address in any case, the same number however it is grouped. */
const keyOf = (kind: RedactionKind, text: string): string => {
  switch (kind) {
    case 'email':
      return `e:${text.trim().toLowerCase()}`;
    case 'phone':
    case 'card':
      return `d:${text.replace(/\D/g, '')}`;
    case 'iban':
      return `a:${text.replace(/[^A-Za-z0-9]/g, '').toUpperCase()}`;
    case 'secret':
    case 'credential':
      return `s:${text.trim()}`;
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

  private readonly keys = new Set<string>();

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
    if (trimmed === '') {
      return;
    }
    this.keys.add(keyOf('secret', trimmed));
    if (numberLike.test(trimmed)) {
      this.keys.add(keyOf('phone', trimmed));
    }
    if (codeLike.test(trimmed)) {
      this.keys.add(keyOf('iban', trimmed));
    }
    if (trimmed.includes('@')) {
      for (const m of trimmed.matchAll(embeddedEmails)) {
        this.keys.add(keyOf('email', m[0]));
      }
    }
  }

  allows(kind: RedactionKind, text: string): boolean {
    return this.keys.has(keyOf(kind, text));
  }
}
