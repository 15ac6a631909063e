import { flattenSchema, Schema, schemaTypes } from '@libs/openapi-schemas';

import { Page } from './pagination';

/** The URL of a page around this one, where the pagination style can name it; built only when a field asks. */
export type PageLink = (target: 'next' | 'prev' | 'first' | 'last') => string | undefined;

type Setter = (body: Record<string, unknown>, page: Page, linkTo: PageLink) => void;

/** Where in a list response the page's metadata goes, worked out once per operation from its schema. */
export interface ListEnvelope {
  setters: Setter[];
}

const cursorField = /^(next_?cursor|next_?page_?token|next_?token|cursor|next_?marker|after)$/i;
const urlField = /^(next|next_?page|next_?page_?url|next_?link|nextlink|next_?url)$/i;
const prevField =
  /^(prev|previous|prev_?page|previous_?page|prev_?page_?url|previous_?page_?url|prev_?link|prev_?url)$/i;
const firstField = /^(first|first_?page|first_?page_?url|first_?link|first_?url)$/i;
const lastField = /^(last|last_?page|last_?page_?url|last_?link|last_?url)$/i;
const totalField = /^(total|total_?count|total_?results|total_?items|total_?entries|count|total_?size)$/i;
const limitField = /^(limit|page_?size|per_?page)$/i;
const offsetField = /^(offset|start)$/i;
const pageField = /^(page|page_?number|current_?page)$/i;
const moreField = /^(has_?more|more|has_?next|has_?next_?page)$/i;
const firstIdField = /^first_?id$/i;
const listKeyField = /^(key|list_?key|items?_?key|results?_?key)$/i;
const lastIdField = /^last_?id$/i;

/** The object holding the field at `path` in a body, if the body has one there. */
const parentAt = (body: Record<string, unknown>, path: string[]): Record<string, unknown> | undefined =>
  path.slice(0, -1).reduce<Record<string, unknown> | undefined>((node, key) => {
    const child = node?.[key];
    return child && typeof child === 'object' && !Array.isArray(child) ? (child as Record<string, unknown>) : undefined;
  }, body);

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
        (value: (page: Page, linkTo: PageLink) => unknown): Setter =>
        (body, page, linkTo) => {
          const parent = parentAt(body, at);
          if (!parent) {
            return;
          }
          const next = value(page, linkTo);
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
      if (types.includes('string') && depth > 0 && listField !== undefined && listKeyField.test(name)) {
        // Metadata naming the field that holds the page's items (`meta.key`): SDKs read the items from there.
        setters.push(set(() => listField));
      } else if (types.includes('string') && firstIdField.test(name)) {
        setters.push(set((page) => page.firstId));
      } else if (types.includes('string') && lastIdField.test(name)) {
        setters.push(set((page) => page.lastId));
      } else if (types.includes('string') && cursorField.test(name) && !property.format) {
        setters.push(
          set((page) => page.nextCursor ?? (required.has(name) && !types.includes('null') ? '' : undefined)),
        );
      } else if (types.includes('string') && urlField.test(name)) {
        setters.push(set((page, linkTo) => (page.hasMore ? linkTo('next') : undefined)));
      } else if (types.includes('string') && prevField.test(name)) {
        setters.push(set((page, linkTo) => (page.offset > 0 ? linkTo('prev') : undefined)));
      } else if (types.includes('string') && firstField.test(name)) {
        setters.push(set((page, linkTo) => (page.offset > 0 ? linkTo('first') : undefined)));
      } else if (types.includes('string') && lastField.test(name)) {
        setters.push(set((page, linkTo) => (page.hasMore ? linkTo('last') : undefined)));
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
      } else if (types.length === 0 && Array.isArray(property.anyOf) && depth < 3) {
        // Links as a union of objects (DigitalOcean's `pages`: forward links, backward links or `{}`): every branch's
        // fields are filled where the page has them, in an object (the template may hold another branch's value),
        // which stays valid because an `anyOf` of open objects takes any of their fields together.
        const branches = property.anyOf.map((branch) => flattenSchema(document, branch));
        if (branches.every((branch) => schemaTypes(branch).length === 0 || schemaTypes(branch).includes('object'))) {
          setters.push((body) => {
            const parent = parentAt(body, at);
            const current = parent?.[name];
            if (parent && (!current || typeof current !== 'object' || Array.isArray(current))) {
              parent[name] = {};
            }
          });
          visit(
            { type: 'object', properties: Object.assign({}, ...branches.map((b) => b.properties ?? {})) },
            at,
            depth + 1,
          );
        }
      }
    }
  };
  visit(schema, [], 0);
  return { setters };
};
