import { bundleLimits } from './bundle-limits';
import { appendPointer } from './json-pointer';

export type BudgetBreach =
  | { kind: 'depth'; pointer: string }
  | { kind: 'nodes'; pointer: string }
  | { kind: 'text'; pointer: string }
  | { kind: 'loop'; pointer: string }
  | { kind: 'nul'; pointer: string };

interface Measure {
  nodes: number;
  text: number;
  height: number;
}

class Breach extends Error {
  constructor(readonly breach: BudgetBreach) {
    super(breach.kind);
  }
}

/**
 * Measures a parsed document (and refuses NUL characters, which PostgreSQL cannot store in text or JSON) as it would be once every shared node (a YAML alias) is written out, without writing
 * it out: shared nodes are measured once and their measure reused, so a 500-byte billion-laughs file costs as much
 * to measure as it has distinct nodes. Returns the first place that breaks a budget, or undefined. `shared`: whether
 * nodes may be shared at all (YAML); JSON.parse never shares one, so it is measured without the bookkeeping.
 */
export const measureDocument = (root: unknown, shared = true): BudgetBreach | undefined => {
  const measured = new WeakMap<object, Measure>();
  const open = new WeakSet<object>();
  // The path is kept as a stack and turned into a pointer only on a breach: building one per node doubled the cost.
  const path: (string | number)[] = [];
  const here = (): string => appendPointer('', ...path);
  const visit = (value: unknown, depth: number): Measure => {
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'string' && value.includes('\u0000')) {
        throw new Breach({ kind: 'nul', pointer: here() });
      }
      return { nodes: 1, text: typeof value === 'string' ? value.length : 8, height: 0 };
    }
    if (depth > bundleLimits.maxDepth) {
      throw new Breach({ kind: 'depth', pointer: here() });
    }
    const known = shared ? measured.get(value) : undefined;
    if (known) {
      if (depth + known.height > bundleLimits.maxDepth) {
        throw new Breach({ kind: 'depth', pointer: here() });
      }
      return known;
    }
    if (shared) {
      if (open.has(value)) {
        throw new Breach({ kind: 'loop', pointer: here() });
      }
      open.add(value);
    }
    const total: Measure = { nodes: 1, text: 0, height: 0 };
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [key, child] of entries) {
      if (typeof key === 'string' && key.includes('\u0000')) {
        path.push(key);
        throw new Breach({ kind: 'nul', pointer: here() });
      }
      path.push(key);
      const inner = visit(child, depth + 1);
      path.pop();
      total.nodes += inner.nodes;
      total.text += inner.text + (typeof key === 'string' ? key.length : 0);
      total.height = Math.max(total.height, inner.height + 1);
    }
    if (shared) {
      open.delete(value);
    }
    if (total.nodes > bundleLimits.maxDocumentNodes) {
      throw new Breach({ kind: 'nodes', pointer: here() });
    }
    if (total.text > bundleLimits.maxDocumentTextBytes) {
      throw new Breach({ kind: 'text', pointer: here() });
    }
    if (shared) {
      measured.set(value, total);
    }
    return total;
  };
  try {
    visit(root, 0);
    return undefined;
  } catch (error) {
    if (error instanceof Breach) {
      return error.breach;
    }
    throw error;
  }
};

export const describeBreach = (breach: BudgetBreach, expansion: string): string => {
  switch (breach.kind) {
    case 'depth':
      return `nesting deeper than ${bundleLimits.maxDepth} levels`;
    case 'nodes':
      return `${expansion} expand this to more than ${bundleLimits.maxDocumentNodes.toLocaleString('en')} nodes`;
    case 'text':
      return `${expansion} expand this to more than ${bundleLimits.maxDocumentTextBytes / 1024 / 1024} MiB of text`;
    case 'loop':
      return `${expansion} form a loop: this node contains itself`;
    case 'nul':
      return 'a NUL character (\\u0000) here cannot be stored; remove it';
  }
};

/**
 * Offset of the first bracket nested deeper than the limit, for JSON and YAML flow collections: the parsers and the
 * position finder recurse, so a 10,000-level document must be located without them.
 */
export const deepBracketOffset = (text: string): number | undefined => {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === '\\' && quote === '"') {
        i++;
      } else if (char === quote) {
        quote = undefined;
      }
    } else if (char === '"') {
      quote = char;
    } else if (char === '[' || char === '{') {
      depth++;
      if (depth > bundleLimits.maxDepth) {
        return i;
      }
    } else if (char === ']' || char === '}') {
      depth--;
    }
  }
  return undefined;
};
