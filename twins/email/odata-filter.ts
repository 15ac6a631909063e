/**
 * Graph's `$filter` for mail: comparisons (`eq ne gt ge lt le`), `and`/`or`/`not` with OData's precedence, parentheses,
 * `contains`/`startswith`/`endswith`, property paths (`from/emailAddress/address`) and `any` lambdas over collections
 * (`toRecipients/any(r: r/emailAddress/address eq 'x')`). Literals: strings, booleans, null, numbers, and bare
 * ISO 8601 date-times as OData v4 writes them.
 *
 * Written here rather than taken from npm: the OData v4 parsers there either read only OData v2 date literals
 * (`datetime'…'`, which Graph clients never send) or bind `not` looser than `or`, which silently inverts filters.
 */
export class FilterError extends Error {}

type Value = string | number | boolean | null | undefined | unknown[] | Record<string, unknown>;
export type Predicate = (record: Record<string, unknown>) => boolean;
type Expression = (scope: Scope) => Value;
interface Scope {
  record: Record<string, unknown>;
  variables: Map<string, unknown>;
}

const tokenPattern =
  /\s*(?:(\()|(\))|(,)|(:)|('(?:[^']|'')*')|(\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-]\d{2}:\d{2})?)|(-?\d+(?:\.\d+)?)|([A-Za-z_@$][\w./@$-]*))/y;

type Token = { kind: 'open' | 'close' | 'comma' | 'colon' | 'string' | 'datetime' | 'number' | 'word'; text: string };

const tokenize = (text: string): Token[] => {
  const tokens: Token[] = [];
  tokenPattern.lastIndex = 0;
  while (tokenPattern.lastIndex < text.length) {
    const at = tokenPattern.lastIndex;
    if (/^\s*$/.test(text.slice(at))) {
      break;
    }
    const match = tokenPattern.exec(text);
    if (!match) {
      throw new FilterError(`unexpected "${text.slice(at).trim().slice(0, 20)}" at position ${at}`);
    }
    const kinds: Token['kind'][] = ['open', 'close', 'comma', 'colon', 'string', 'datetime', 'number', 'word'];
    const index = match.slice(1).findIndex((group) => group !== undefined);
    tokens.push({ kind: kinds[index], text: match[index + 1] });
  }
  return tokens;
};

const comparisons = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);

const normalise = (value: unknown): unknown => {
  if (typeof value === 'string') {
    // Dates compare as instants, text without regard to case (as Exchange does for addresses and subjects).
    return /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))
      ? Date.parse(value)
      : value.toLowerCase();
  }
  return value;
};

const compare = (operator: string, left: unknown, right: unknown): boolean => {
  const a = normalise(left);
  const b = normalise(right);
  switch (operator) {
    case 'eq':
      return (a ?? null) === (b ?? null);
    case 'ne':
      return (a ?? null) !== (b ?? null);
  }
  if (a === undefined || a === null || b === undefined || b === null) {
    return false;
  }
  const x = a as number | string;
  const y = b as number | string;
  return operator === 'gt' ? x > y : operator === 'ge' ? x >= y : operator === 'lt' ? x < y : x <= y;
};

const resolvePath = (path: string, scope: Scope): Value => {
  const [head, ...rest] = path.split('/');
  let value: unknown = scope.variables.has(head) ? scope.variables.get(head) : scope.record[head];
  for (const part of rest) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value as Value;
};

class Parser {
  private index = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly source: string,
  ) {}

  parse(): Expression {
    const expression = this.or();
    if (this.index < this.tokens.length) {
      throw new FilterError(`unexpected "${this.tokens[this.index].text}" in "${this.source}"`);
    }
    return expression;
  }

  private peekWord(word: string): boolean {
    const token = this.tokens[this.index];
    return token?.kind === 'word' && token.text.toLowerCase() === word;
  }

  private next(kind?: Token['kind']): Token {
    const token = this.tokens[this.index];
    if (!token || (kind && token.kind !== kind)) {
      throw new FilterError(
        `expected ${kind ?? 'more'} ${token ? `but found "${token.text}"` : 'at the end'} in "${this.source}"`,
      );
    }
    this.index++;
    return token;
  }

  private or(): Expression {
    let left = this.and();
    while (this.peekWord('or')) {
      this.index++;
      const l = left;
      const r = this.and();
      left = (scope) => Boolean(l(scope)) || Boolean(r(scope));
    }
    return left;
  }

  private and(): Expression {
    let left = this.not();
    while (this.peekWord('and')) {
      this.index++;
      const l = left;
      const r = this.not();
      left = (scope) => Boolean(l(scope)) && Boolean(r(scope));
    }
    return left;
  }

  private not(): Expression {
    if (this.peekWord('not')) {
      this.index++;
      const inner = this.not();
      return (scope) => !inner(scope);
    }
    return this.comparison();
  }

  private comparison(): Expression {
    const left = this.primary();
    const token = this.tokens[this.index];
    if (token?.kind === 'word' && comparisons.has(token.text.toLowerCase())) {
      this.index++;
      const operator = token.text.toLowerCase();
      const right = this.primary();
      return (scope) => compare(operator, left(scope), right(scope));
    }
    return left;
  }

  private primary(): Expression {
    const token = this.next();
    switch (token.kind) {
      case 'open': {
        const inner = this.or();
        this.next('close');
        return inner;
      }
      case 'string': {
        const value = token.text.slice(1, -1).replace(/''/g, "'");
        return () => value;
      }
      case 'datetime':
        return () => token.text;
      case 'number': {
        const value = Number(token.text);
        return () => value;
      }
      case 'word':
        return this.word(token.text);
      default:
        throw new FilterError(`unexpected "${token.text}" in "${this.source}"`);
    }
  }

  private word(text: string): Expression {
    const lower = text.toLowerCase();
    if (lower === 'true' || lower === 'false') {
      return () => lower === 'true';
    }
    if (lower === 'null') {
      return () => null;
    }
    const call = this.tokens[this.index]?.kind === 'open';
    if (call && ['contains', 'startswith', 'endswith'].includes(lower)) {
      this.index++;
      const subject = this.or();
      this.next('comma');
      const needle = this.or();
      this.next('close');
      return (scope) => {
        const haystack = subject(scope);
        const wanted = needle(scope);
        if (typeof haystack !== 'string' || typeof wanted !== 'string') {
          return false;
        }
        const h = haystack.toLowerCase();
        const w = wanted.toLowerCase();
        return lower === 'contains' ? h.includes(w) : lower === 'startswith' ? h.startsWith(w) : h.endsWith(w);
      };
    }
    const lambda = /^(.*)\/(any|all)$/i.exec(text);
    if (call && lambda) {
      this.index++;
      const variable = this.next('word').text;
      this.next('colon');
      const body = this.or();
      this.next('close');
      const [, collection, quantifier] = lambda;
      return (scope) => {
        const items = resolvePath(collection, scope);
        if (!Array.isArray(items)) {
          return false;
        }
        const test = (item: unknown) =>
          Boolean(body({ record: scope.record, variables: new Map([...scope.variables, [variable, item]]) }));
        return quantifier.toLowerCase() === 'any' ? items.some(test) : items.every(test);
      };
    }
    if (call) {
      throw new FilterError(`unsupported function "${text}" in "${this.source}"`);
    }
    return (scope) => resolvePath(text, scope);
  }
}

/** Compiles a `$filter` into a predicate; a filter it cannot read throws a FilterError naming the spot. */
export const compileFilter = (filter: string): Predicate => {
  const expression = new Parser(tokenize(filter), filter).parse();
  return (record) => Boolean(expression({ record, variables: new Map() }));
};

/** `$orderby=receivedDateTime desc,subject` as a comparator. */
export const compileOrderBy = (
  orderBy: string,
): ((a: Record<string, unknown>, b: Record<string, unknown>) => number) => {
  const keys = orderBy.split(',').map((part) => {
    const [path, direction = 'asc'] = part.trim().split(/\s+/);
    if (!path || !/^(asc|desc)$/i.test(direction)) {
      throw new FilterError(`cannot order by "${part.trim()}"`);
    }
    return { path, sign: direction.toLowerCase() === 'desc' ? -1 : 1 };
  });
  return (a, b) => {
    for (const { path, sign } of keys) {
      const x = normalise(resolvePath(path, { record: a, variables: new Map() })) as string | number | undefined;
      const y = normalise(resolvePath(path, { record: b, variables: new Map() })) as string | number | undefined;
      if (x !== y) {
        return (x === undefined ? -1 : y === undefined ? 1 : x < y ? -1 : 1) * sign;
      }
    }
    return 0;
  };
};
