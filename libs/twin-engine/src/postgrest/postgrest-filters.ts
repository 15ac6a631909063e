import type { WorldRecord } from '@libs/synthetic-data';

import { parseFault, unknownColumn } from './postgrest-fault';
import { Column, Table } from './postgrest-tables';
import { compareValues, fromText, likeMatches } from './postgrest-values';

const operators = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'in', 'is', 'isdistinct'] as const;
type Operator = (typeof operators)[number];
const quantifiable = new Set<Operator>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike']);

interface Condition {
  kind: 'condition';
  column: Column;
  negate: boolean;
  operator: Operator;
  quantifier?: 'any' | 'all';
  /** Typed by the column (`in` and quantified operators: a list); `is`: `null`, `not_null`, `true`, `false`, `unknown`. */
  values: unknown[];
}

interface Junction {
  kind: 'and' | 'or';
  negate: boolean;
  items: Filter[];
}

export type Filter = Condition | Junction;

/** Parameters that are not horizontal filters. */
export const reservedParameters = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);

/** Splits on commas outside parentheses, braces and double quotes, as PostgREST reads lists. */
export const splitTopLevel = (text: string): string[] => {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      current += char;
      if (char === '\\' && i + 1 < text.length) {
        current += text[++i];
      } else if (char === '"') {
        quoted = false;
      }
      continue;
    }
    if (char === '"') {
      quoted = true;
    } else if (char === '(' || char === '{') {
      depth++;
    } else if (char === ')' || char === '}') {
      depth--;
    } else if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  if (quoted || depth !== 0) {
    throw parseFault('list', `unbalanced quotes or brackets in "${text.slice(0, 100)}"`);
  }
  parts.push(current);
  return parts;
};

const unquote = (text: string): string =>
  text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text;

const listOf = (text: string, open: string, close: string, what: string): string[] => {
  if (!text.startsWith(open) || !text.endsWith(close)) {
    throw parseFault(what, `expected a list in ${open}${close}, got "${text.slice(0, 100)}"`);
  }
  const inner = text.slice(1, -1);
  return inner.trim() === '' ? [] : splitTopLevel(inner).map((item) => unquote(item.trim()));
};

const isValues = new Set(['null', 'not_null', 'true', 'false', 'unknown']);

/** `[not.]op[(any|all)].value` on one column, its value typed by the column now, so a bad one fails with no row. */
const parseCondition = (table: Table, columnName: string, expression: string, source: string): Condition => {
  const column = table.columns.get(columnName);
  if (!column) {
    if (columnName.includes('->') || columnName.includes('.')) {
      throw parseFault(`filter (${source.slice(0, 200)})`, 'JSON paths and embedded resources are not filtered here');
    }
    throw unknownColumn(table.name, columnName);
  }
  const match = /^(not\.)?([a-z]+)(?:\((any|all)\))?\.([\s\S]*)$/.exec(expression);
  const operator = match?.[2] as Operator | undefined;
  if (!match || !operator || !operators.includes(operator)) {
    throw parseFault(
      `filter (${source.slice(0, 200)})`,
      `expecting "not" or an operator (${operators.join(', ')}), then "." and a value`,
    );
  }
  const quantifier = match[3] as 'any' | 'all' | undefined;
  if (quantifier && !quantifiable.has(operator)) {
    throw parseFault(`filter (${source.slice(0, 200)})`, `${operator} takes no (${quantifier}) modifier`);
  }
  const raw = match[4];
  let values: unknown[];
  if (operator === 'is') {
    const value = raw.toLowerCase();
    if (!isValues.has(value)) {
      throw parseFault(`filter (${source.slice(0, 200)})`, 'is takes null, not_null, true, false or unknown');
    }
    values = [value];
  } else if (operator === 'in') {
    values = listOf(raw, '(', ')', `filter (${source.slice(0, 200)})`).map((item) => fromText(column, item));
  } else if (quantifier) {
    values = listOf(raw, '{', '}', `filter (${source.slice(0, 200)})`).map((item) =>
      operator === 'like' || operator === 'ilike' ? item : fromText(column, item),
    );
  } else {
    const text = unquote(raw);
    values = [operator === 'like' || operator === 'ilike' ? text : fromText(column, text)];
  }
  return {
    kind: 'condition',
    column,
    negate: match[1] !== undefined,
    operator,
    ...(quantifier ? { quantifier } : {}),
    values,
  };
};

/** `or=(a.eq.1,and(b.gt.2,c.is.null))`'s inside: conditions and nested junctions, recursively. */
const parseJunction = (table: Table, kind: 'and' | 'or', negate: boolean, text: string, depth: number): Junction => {
  if (depth > 16) {
    throw parseFault('logic tree', 'nested deeper than 16 levels');
  }
  const items = listOf(text, '(', ')', `logic tree (${text.slice(0, 200)})`);
  if (items.length === 0) {
    throw parseFault(`logic tree (${text.slice(0, 200)})`, 'an empty list of conditions');
  }
  return {
    kind,
    negate,
    items: items.map((item) => {
      const nested = /^(not\.)?(and|or)(\([\s\S]*\))$/.exec(item);
      if (nested) {
        return parseJunction(table, nested[2] as 'and' | 'or', nested[1] !== undefined, nested[3], depth + 1);
      }
      const dot = item.indexOf('.');
      if (dot <= 0) {
        throw parseFault(`logic tree (${text.slice(0, 200)})`, `"${item.slice(0, 100)}" is not column.operator.value`);
      }
      return parseCondition(table, item.slice(0, dot), item.slice(dot + 1), item);
    }),
  };
};

/** `books.status=eq.x`: a parameter for a resource embedded by `select`, not for the table itself. */
export const isEmbeddedKey = (key: string): boolean => key.includes('.') && !/^not\.(and|or)$/.test(key);

/**
 * Every horizontal filter of a query: `col=op.value` and `or`/`and`/`not.or`/`not.and` trees, all to hold. Parameters
 * of embedded resources (`books.status=…`) are left to the selection that embeds them.
 */
export const parseFilters = (table: Table, parameters: Iterable<[string, string]>): Filter[] => {
  const filters: Filter[] = [];
  for (const [key, value] of parameters) {
    if (reservedParameters.has(key) || isEmbeddedKey(key)) {
      continue;
    }
    const junction = /^(not\.)?(and|or)$/.exec(key);
    if (junction) {
      filters.push(parseJunction(table, junction[2] as 'and' | 'or', junction[1] !== undefined, value, 0));
    } else {
      filters.push(parseCondition(table, key, value, `${key}=${value}`));
    }
  }
  return filters;
};

/** SQL's three values: a comparison with NULL is neither true nor false, and NOT keeps it so. */
type Truth = boolean | null;

const compareOne = (condition: Condition, value: unknown, operand: unknown): Truth => {
  const { column, operator } = condition;
  switch (operator) {
    case 'like':
    case 'ilike':
      return likeMatches(
        typeof value === 'string' ? value : JSON.stringify(value),
        String(operand),
        operator === 'ilike',
      );
    default: {
      const order = compareValues(column, value, operand);
      switch (operator) {
        case 'eq':
        case 'in':
          return order === 0;
        case 'neq':
          return order !== 0;
        case 'gt':
          return order > 0;
        case 'gte':
          return order >= 0;
        case 'lt':
          return order < 0;
        case 'lte':
          return order <= 0;
        default:
          return null;
      }
    }
  }
};

const holdsPlain = (condition: Condition, record: WorldRecord): Truth => {
  const value = record[condition.column.name] ?? null;
  const operand = condition.values[0];
  switch (condition.operator) {
    case 'is':
      switch (operand) {
        case 'null':
          return value === null;
        case 'not_null':
          return value !== null;
        case 'true':
          return value === true;
        case 'false':
          return value === false;
        default:
          return value === null;
      }
    case 'isdistinct':
      return value === null || operand === null
        ? value !== operand
        : compareValues(condition.column, value, operand) !== 0;
    default:
      break;
  }
  if (value === null) {
    return null;
  }
  if (condition.operator === 'in') {
    return condition.values.some((item) => compareOne(condition, value, item) === true);
  }
  if (condition.quantifier) {
    const results = condition.values.map((item) => compareOne(condition, value, item));
    return condition.quantifier === 'any' ? results.some(Boolean) : results.every(Boolean);
  }
  return compareOne(condition, value, operand);
};

const negated = (truth: Truth, negate: boolean): Truth => (negate && truth !== null ? !truth : truth);

const holds = (filter: Filter, record: WorldRecord): Truth => {
  if (filter.kind === 'condition') {
    return negated(holdsPlain(filter, record), filter.negate);
  }
  const results = filter.items.map((item) => holds(item, record));
  const truth =
    filter.kind === 'and'
      ? results.includes(false)
        ? false
        : results.includes(null)
          ? null
          : true
      : results.includes(true)
        ? true
        : results.includes(null)
          ? null
          : false;
  return negated(truth, filter.negate);
};

/** Whether a row passes every filter (a row whose filter is NULL does not, as in SQL's WHERE). */
export const matchesAll = (filters: Filter[], record: WorldRecord): boolean =>
  filters.every((filter) => holds(filter, record) === true);
