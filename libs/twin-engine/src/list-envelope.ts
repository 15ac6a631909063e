import { flattenSchema, Schema, schemaTypes } from '@libs/openapi-schemas';

import { Page } from './pagination';

type Setter = (body: Record<string, unknown>, page: Page, links: { next?: string }) => void;

/** Where in a list response the page's metadata goes, worked out once per operation from its schema. */
export interface ListEnvelope {
  setters: Setter[];
}

const cursorField = /^(next_?cursor|next_?page_?token|next_?token|cursor|next_?marker|after)$/i;
const urlField = /^(next|next_?page|next_?page_?url|next_?link|nextlink|next_?url)$/i;
const totalField = /^(total|total_?count|total_?results|total_?items|total_?entries|count|total_?size)$/i;
const limitField = /^(limit|page_?size|per_?page)$/i;
const offsetField = /^(offset|start)$/i;
const pageField = /^(page|page_?number|current_?page)$/i;
const moreField = /^(has_?more|more|has_?next|has_?next_?page)$/i;
const firstIdField = /^first_?id$/i;
const lastIdField = /^last_?id$/i;

/**
 * Finds the pagination fields of a list response (`next_cursor`, `response_metadata.next_cursor`, `meta.total`,
 * `links.pages.next`, `has_more` …) so each page fills them truthfully. Only fields whose schema type fits are
 * touched, and an optional field with nothing to say is removed rather than given an invalid value.
 */
export const planListEnvelope = (document: unknown, schema: Schema, listField: string | undefined): ListEnvelope => {
  const setters: Setter[] = [];
  const visit = (current: Schema, path: string[], depth: number): void => {
    const flat = flattenSchema(document, current);
    const properties = (flat.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(flat.required) ? flat.required.map(String) : []);
    for (const [name, raw] of Object.entries(properties)) {
      if (depth === 0 && name === listField) {
        continue;
      }
      const property = flattenSchema(document, raw);
      const types = schemaTypes(property);
      const at = [...path, name];
      const set =
        (value: (page: Page, links: { next?: string }) => unknown): Setter =>
        (body, page, links) => {
          const parent = at.slice(0, -1).reduce<Record<string, unknown> | undefined>((node, key) => {
            const child = node?.[key];
            return child && typeof child === 'object' && !Array.isArray(child)
              ? (child as Record<string, unknown>)
              : undefined;
          }, body);
          if (!parent) {
            return;
          }
          const next = value(page, links);
          if (next === undefined) {
            if (!required.has(name)) {
              delete parent[name];
            } else if (types.includes('null')) {
              parent[name] = null;
            }
          } else {
            parent[name] = next;
          }
        };
      if (types.includes('string') && firstIdField.test(name)) {
        setters.push(set((page) => page.firstId));
      } else if (types.includes('string') && lastIdField.test(name)) {
        setters.push(set((page) => page.lastId));
      } else if (types.includes('string') && cursorField.test(name) && !property.format) {
        setters.push(
          set((page) => page.nextCursor ?? (required.has(name) && !types.includes('null') ? '' : undefined)),
        );
      } else if (types.includes('string') && urlField.test(name)) {
        setters.push(set((page, links) => (page.hasMore ? links.next : undefined)));
      } else if (types.includes('integer') && totalField.test(name)) {
        setters.push(set((page) => page.total));
      } else if (types.includes('integer') && limitField.test(name)) {
        setters.push(set((page) => page.limit));
      } else if (types.includes('integer') && offsetField.test(name)) {
        setters.push(set((page) => page.offset));
      } else if (types.includes('integer') && pageField.test(name)) {
        setters.push(set((page) => Math.floor(page.offset / page.limit) + 1));
      } else if (types.includes('boolean') && moreField.test(name)) {
        setters.push(set((page) => page.hasMore));
      } else if (types.includes('object') && depth < 3) {
        visit(property, at, depth + 1);
      }
    }
  };
  visit(schema, [], 0);
  return { setters };
};
