/**
 * Clauses real dumps carry that change when or how PostgreSQL checks a key, not which keys and columns there are,
 * and that pgsql-ast-parser does not parse: `DEFERRABLE INITIALLY DEFERRED`, `NOT VALID`, `NO INHERIT`, `NULLS NOT
 * DISTINCT`, and a table's trailing `PARTITION BY …` or `WITH (storage parameters)`.
 */
const inlineClauses =
  /\b((NOT\s+)?DEFERRABLE|INITIALLY\s+(DEFERRED|IMMEDIATE)|NOT\s+VALID|NO\s+INHERIT|NULLS\s+(NOT\s+)?DISTINCT)\b/gi;
const trailingClauses = /\)(\s*(PARTITION\s+BY\s+(RANGE|LIST|HASH)\s*\(.*\)|WITH\s*\([^()]*\)))+\s*$/is;

/** Strings and quoted identifiers, which must keep their words. */
const quoted = /('(?:[^']|'')*'|"(?:[^"]|"")*")/;

const blank = (text: string): string => text.replace(/[^\n]/g, ' ');

/** The statement with those clauses blanked out, so every offset (and so every reported line) stays where it was. */
export const withoutShapelessClauses = (code: string): string => {
  const parts = code.split(quoted).map((part, i) => (i % 2 === 1 ? part : part.replace(inlineClauses, blank)));
  const joined = parts.join('');
  const trailing = trailingClauses.exec(joined);
  return trailing ? `${joined.slice(0, trailing.index + 1)}${blank(joined.slice(trailing.index + 1))}` : joined;
};
