import { DocumentValidators, flattenSchema, Schema } from '@libs/openapi-schemas';
import { WorldRecord } from '@libs/synthetic-data';

import { admitsExactInteger } from './exact-bounds';
import { coerceTree, viewOf } from './schema-coercion';

/** `FriendlyName`, `friendly_name` and `friendly-name` name one field: the request's and the record's spelling. */
const folded = (name: string): string => name.replace(/[_\-\s]/g, '').toLowerCase();

/**
 * The record field a request name means: the same name when the record has it, else the one field whose name differs
 * only in case and separators (a form's `FriendlyName` for the record's `friendly_name`), else none.
 */
export const recordFieldFor = (name: string, properties: Record<string, unknown>): string | undefined => {
  if (Object.hasOwn(properties, name)) {
    return name;
  }
  const wanted = folded(name);
  const candidates = Object.keys(properties).filter((field) => folded(field) === wanted);
  return candidates.length === 1 ? candidates[0] : undefined;
};

/** A parameter that orders or shapes the answer (`sort`, `direction`, "Sort results by") is never a filter. */
const ordersResults =
  /\b(sort|sorts|sorted|sorting|ascending|descending)\b|\border(ed)? (by|of|in which)\b|\bdirection of\b/i;

/** Words that ask for every record rather than the records holding that word, when the field's own values lack them. */
const everything = new Set(['all', 'any', '*']);

export type ListFilter = [field: string, wanted: unknown[]];

/**
 * Query parameters that hold filters by field name rather than being one: a deepObject `filter` read as
 * `{ status: 'open' }`, or a parameter named `filter[status]`. Other objects (`page[number]`, `fields[tickets]`) page
 * or shape the answer, so their members are never filters, even where a record has a field of that name.
 */
const filterHolders = /^(filters?|where|criteria|search|q)$/i;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A query's entries as candidate filters: each member of a filter holder as if it were a parameter of its own. */
const candidateFilters = (
  query: Record<string, unknown>,
  properties: Record<string, unknown>,
): [name: string, value: unknown][] =>
  Object.entries(query).flatMap(([name, value]): [string, unknown][] => {
    if (recordFieldFor(name, properties) !== undefined) {
      return [[name, value]];
    }
    if (filterHolders.test(name) && isPlainObject(value)) {
      return Object.entries(value);
    }
    const held = /^([^[\]]+)\[([^[\]]+)\]$/.exec(name);
    return held && filterHolders.test(held[1]) ? [[held[2], value]] : [[name, value]];
  });

/**
 * An integer beyond 2^53 asked for by its digits (query coercion keeps them as text): a value the field holds when its
 * nearest number does and the digits are within its bounds. Records keep such integers as their digits too, and
 * `matchesFilters` compares text, so the filter is exact.
 */
const holdsExactly = (item: unknown, schema: unknown, holds: (value: unknown) => boolean, document: unknown): boolean =>
  typeof item === 'string' &&
  /^-?\d{16,}$/.test(item) &&
  holds(Number(item)) &&
  admitsExactInteger(document, schema, item);

/**
 * Query parameters that filter a listing: those that name a record field (`?status=active`, `?FriendlyName=x` for
 * `friendly_name`, `?filter[status]=active`), are not paging or ordering parameters, and only with values the field
 * can hold. A value the field
 * cannot hold (`state=all` where states are open and closed) asks for no filtering, so it does not filter to nothing.
 */
export const listFilters = (
  query: Record<string, unknown>,
  parameters: { name: string; in: string; description?: string }[],
  record: Schema,
  paging: Set<string>,
  document: unknown,
  validators: DocumentValidators,
): ListFilter[] => {
  const properties = (record.properties ?? {}) as Record<string, unknown>;
  const filters: ListFilter[] = [];
  for (const [name, value] of candidateFilters(query, properties)) {
    const field = recordFieldFor(name, properties);
    const description = parameters.find((p) => p.in === 'query' && p.name === name)?.description ?? '';
    if (field === undefined || paging.has(name) || ordersResults.test(description)) {
      continue;
    }
    const fieldSchema = properties[field];
    const view = viewOf(document, fieldSchema);
    const valueSchema = view.types.includes('array') ? (view.items ?? {}) : fieldSchema;
    const holds = (() => {
      try {
        return validators.validatorForSchema(valueSchema as Schema);
      } catch {
        return () => true;
      }
    })();
    const hasEnum = Array.isArray(flattenSchema(document, valueSchema).enum);
    const wanted = (Array.isArray(value) ? value : [value])
      .filter((item) => ['string', 'number', 'boolean'].includes(typeof item))
      .map((item) => coerceTree(document, valueSchema, String(item)))
      .filter(
        (item) =>
          (holds(item) || holdsExactly(item, valueSchema, holds, document)) &&
          (hasEnum || !everything.has(String(item).toLowerCase())),
      );
    if (wanted.length > 0) {
      filters.push([field, wanted]);
    }
  }
  return filters;
};

export const matchesFilters = (record: WorldRecord, filters: ListFilter[]): boolean =>
  filters.every(([field, wanted]) => {
    const actual = record[field];
    const wants = wanted.map(String);
    return Array.isArray(actual)
      ? actual.some((value) => wants.includes(String(value)))
      : wants.includes(String(actual));
  });
