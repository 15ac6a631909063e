import { RE2 } from 're2-wasm';

/**
 * Spec patterns run on RE2, whose matching time is linear in the input: `^(a+)+$` against 34 `a`s and a `!` took a
 * backtracking engine more than 80 s and blocked the twin's event loop. RE2 has no look-around or back-references;
 * a pattern it cannot compile is reported at ingest (see `patternProblem`) and not enforced by the twin.
 *
 * re2-wasm runs in a fixed 16 MB WebAssembly heap and never frees a compiled pattern by itself, so compiled patterns
 * live in a small LRU and are freed on eviction; matchers handed out only hold the pattern text and recompile it
 * when it was evicted. A pattern too big for that heap fails to compile like any other and is not enforced.
 */
export interface PatternMatcher {
  test(value: string): boolean;
  toString(): string;
}

/** The part of re2-wasm's RE2 used here; `wrapper` is its WebAssembly object, freed by `delete()`. */
interface CompiledPattern {
  test(value: string): boolean;
  wrapper?: { delete(): void };
}

const maxLive = 256;
const live = new Map<string, CompiledPattern>();
const failures = new Map<string, string>();
const maxFailures = 10_000;

const compile = (pattern: string): CompiledPattern | string => {
  const known = live.get(pattern);
  if (known) {
    // Most recently used last, so eviction takes the least recently used.
    live.delete(pattern);
    live.set(pattern, known);
    return known;
  }
  const failed = failures.get(pattern);
  if (failed !== undefined) {
    return failed;
  }
  try {
    // The u flag is re2-wasm's only mode; RE2 also accepts the escaped punctuation (`\-`, `\:`) vendors write.
    const compiled = new RE2(pattern, 'u') as unknown as CompiledPattern;
    live.set(pattern, compiled);
    if (live.size > maxLive) {
      const [oldest, evicted] = live.entries().next().value as [string, CompiledPattern];
      live.delete(oldest);
      evicted.wrapper?.delete();
    }
    return compiled;
  } catch (error) {
    const reason =
      error instanceof SyntaxError
        ? error.message.replace(/^Invalid regular expression: \/.*\/u: /s, '')
        : 'too large for the linear-time engine';
    if (failures.size < maxFailures) {
      failures.set(pattern, reason);
    }
    return reason;
  }
};

/** Why a spec's pattern cannot run on the linear-time engine, or undefined when it can. */
export const patternProblem = (pattern: string): string | undefined => {
  const found = compile(pattern);
  return typeof found === 'string' ? found : undefined;
};

/** A linear-time matcher for a spec's pattern; one that cannot compile matches everything (it is not enforced). */
export const linearPattern = (pattern: string): PatternMatcher => ({
  test: (value) => {
    const found = compile(pattern);
    return typeof found === 'string' ? true : found.test(value);
  },
  // ajv keys the patterns it has compiled by this text: without it every pattern of a schema would share the first.
  toString: () => `/${pattern}/`,
});

/** ajv's `code.regExp` hook: every `pattern` and `patternProperties` key of a schema goes through RE2. */
export const linearRegExp = Object.assign((pattern: string) => linearPattern(pattern), {
  code: 'require("re2-wasm").RE2',
});
