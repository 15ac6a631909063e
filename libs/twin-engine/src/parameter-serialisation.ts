import * as qs from 'qs';

import { flattenSchema } from '@libs/openapi-schemas';

import { coerceText, coerceTree, TextTree } from './schema-coercion';
import { TwinRequest } from './twin-http';

/** OpenAPI's `style` values, with Swagger 2's `tsv` collection format (kept by the converter as an extension). */
export type ParameterStyle =
  'form' | 'simple' | 'label' | 'matrix' | 'spaceDelimited' | 'pipeDelimited' | 'tabDelimited' | 'deepObject';

export interface Serialisation {
  style: ParameterStyle;
  explode: boolean;
}

export interface SerialisedParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: unknown;
  types: string[];
  serialisation: Serialisation;
}

const styles = new Set<string>([
  'form',
  'simple',
  'label',
  'matrix',
  'spaceDelimited',
  'pipeDelimited',
  'tabDelimited',
  'deepObject',
]);

/** The spec's serialisation of a parameter, with OpenAPI's defaults: form (exploded) for query and cookie, else simple. */
export const serialisationOf = (
  location: SerialisedParameter['in'],
  declared: { style?: string; explode?: boolean; collectionFormat?: string },
): Serialisation => {
  const style: ParameterStyle =
    declared.collectionFormat === 'tsv'
      ? 'tabDelimited'
      : declared.style && styles.has(declared.style)
        ? (declared.style as ParameterStyle)
        : location === 'query' || location === 'cookie'
          ? 'form'
          : 'simple';
  return { style, explode: declared.explode ?? style === 'form' };
};

/**
 * Bracket notation as PHP, Rails and payments SDKs write it (`a[b][c]=`, `a[]=`, `a[0][b]=`). Prototype names are
 * allowed because the objects have no prototype. Depth, field count and list size are bounded, and a request past a
 * bound is refused (a `RangeError`, see `BracketLimitError`) rather than cut short, so nothing is half-read.
 */
const bracketOptions: qs.IParseOptions = {
  depth: 12,
  strictDepth: true,
  arrayLimit: 1000,
  parameterLimit: 2000,
  throwOnLimitExceeded: true,
  plainObjects: true,
  allowPrototypes: true,
  allowEmptyArrays: false,
};

/** A form or query past the decoder's bounds (too deep, too many fields or items): the client's to fix, a 400. */
export class BracketLimitError extends Error {}

export const parseBrackets = (text: string): Record<string, TextTree> => {
  try {
    return qs.parse(text, bracketOptions) as Record<string, TextTree>;
  } catch (error) {
    if (error instanceof RangeError) {
      throw new BracketLimitError(error.message);
    }
    throw error;
  }
};

const delimiters: Partial<Record<ParameterStyle, string>> = {
  form: ',',
  simple: ',',
  label: ',',
  matrix: ',',
  spaceDelimited: ' ',
  pipeDelimited: '|',
  tabDelimited: '\t',
};

type Kind = 'array' | 'object' | 'primitive';

const kindOf = (types: string[]): Kind =>
  types.includes('array') ? 'array' : types.includes('object') && !types.includes('string') ? 'object' : 'primitive';

/** `k1,v1,k2,v2` → `{ k1: v1, k2: v2 }`; an odd count is not such a list. */
const pairs = (items: string[]): Record<string, string> | undefined =>
  items.length % 2 === 0
    ? Object.fromEntries(items.flatMap((_, i) => (i % 2 === 0 ? [[items[i], items[i + 1]]] : [])))
    : undefined;

/** `k1=v1,k2=v2` → `{ k1: v1, k2: v2 }`. */
const assignments = (items: string[]): Record<string, string> | undefined =>
  items.every((item) => item.includes('='))
    ? Object.fromEntries(items.map((item) => [item.slice(0, item.indexOf('=')), item.slice(item.indexOf('=') + 1)]))
    : undefined;

/** The query entries spelled with brackets after the name (`metadata[k]=v`, `ids[]=1`), decoded as one tree. */
const bracketed = (query: URLSearchParams, name: string): TextTree | undefined => {
  const prefix = `${name}[`;
  const entries = [...query].filter(([key]) => key.startsWith(prefix));
  if (entries.length === 0) {
    return undefined;
  }
  const text = entries.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  return parseBrackets(text)[name];
};

const present = <T>(values: (T | undefined)[]): T[] => values.filter((value): value is T => value !== undefined);

/** Readings of a query or cookie parameter from its values (`form` and the delimited styles). */
const formReadings = (
  document: unknown,
  parameter: SerialisedParameter,
  values: string[],
  byName: (name: string) => string | undefined,
  brackets: TextTree | undefined,
): TextTree[] => {
  const { style, explode } = parameter.serialisation;
  const delimiter = delimiters[style] ?? ',';
  const last = values[values.length - 1];
  switch (kindOf(parameter.types)) {
    case 'primitive':
      return present([last, brackets]);
    case 'array': {
      const split = last === undefined ? undefined : values.length > 1 ? values : last.split(delimiter);
      // An exploded list repeats its name; a client that joins the items anyway is read both ways, literal first.
      const readings = explode && style !== 'deepObject' ? [values.length > 0 ? values : undefined, split] : [split];
      return present([...readings, brackets]);
    }
    case 'object': {
      if (style === 'deepObject') {
        return present([brackets]);
      }
      if (explode) {
        // `?R=100&G=200`: each property by its own name.
        const properties = Object.keys(
          (flattenSchema(document, parameter.schema ?? {}).properties as Record<string, unknown> | undefined) ?? {},
        );
        const found = Object.fromEntries(
          properties.flatMap((name) => (byName(name) === undefined ? [] : [[name, byName(name) as string]])),
        );
        return present([Object.keys(found).length > 0 ? found : undefined, brackets]);
      }
      return present([last === undefined ? undefined : pairs(last.split(delimiter)), brackets]);
    }
  }
};

/** Readings of a path or header value in the `simple`, `label` or `matrix` style. */
const segmentReadings = (parameter: SerialisedParameter, raw: string): TextTree[] => {
  const { style, explode } = parameter.serialisation;
  let text = raw;
  let separator = ',';
  if (style === 'label') {
    if (!text.startsWith('.')) {
      return [raw];
    }
    text = text.slice(1);
    separator = explode ? '.' : ',';
  } else if (style === 'matrix') {
    if (!text.startsWith(';')) {
      return [raw];
    }
    text = text.slice(1);
    separator = explode ? ';' : ',';
  }
  const prefix = `${parameter.name}=`;
  const kind = kindOf(parameter.types);
  if (style === 'matrix' && !(kind === 'object' && explode)) {
    // `;id=5`, `;id=3,4,5` and, exploded, `;id=3;id=4;id=5`: the name precedes every value.
    const parts = text.split(';');
    if (!parts.every((part) => part.startsWith(prefix))) {
      return [raw];
    }
    const values = parts.map((part) => part.slice(prefix.length));
    const joined = values.join(',');
    if (kind === 'primitive') {
      return [joined];
    }
    const items = explode ? values : joined.split(',');
    return kind === 'array' ? [items] : present([pairs(items)]);
  }
  if (kind === 'primitive') {
    return [text];
  }
  const items = text === '' ? [] : text.split(separator);
  if (kind === 'array') {
    return [items];
  }
  return present([explode ? assignments(items) : pairs(items), explode ? pairs(items) : assignments(items)]);
};

const cookiesOf = (header: string | undefined): [string, string][] =>
  (header ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.includes('='))
    .map((part) => {
      const name = part.slice(0, part.indexOf('=')).trim();
      const value = part.slice(part.indexOf('=') + 1).trim();
      try {
        return [name, decodeURIComponent(value)];
      } catch {
        return [name, value];
      }
    });

/**
 * The ways a parameter's text can be read, best first, before coercion: most requests have one; a list sent both
 * exploded and joined (clients disagree) has two. The caller keeps the first that validates, else reports the first.
 */
export const parameterReadings = (
  parameter: SerialisedParameter,
  request: TwinRequest,
  pathParams: Record<string, string>,
  document: unknown,
): TextTree[] => {
  switch (parameter.in) {
    case 'path': {
      // Already decoded once by the router: decoding again turned `100%25` into a URIError and `%2525` into `%`.
      const raw = pathParams[parameter.name];
      return raw === undefined ? [] : segmentReadings(parameter, raw);
    }
    case 'header': {
      const raw = request.headers[parameter.name.toLowerCase()];
      return raw === undefined ? [] : segmentReadings(parameter, raw);
    }
    case 'query': {
      const values = request.query.getAll(parameter.name);
      const brackets = kindOf(parameter.types) === 'primitive' ? undefined : bracketed(request.query, parameter.name);
      return formReadings(document, parameter, values, (name) => request.query.get(name) ?? undefined, brackets);
    }
    case 'cookie': {
      const cookies = cookiesOf(request.headers.cookie);
      const values = cookies.filter(([name]) => name === parameter.name).map(([, value]) => value);
      return formReadings(document, parameter, values, (name) => cookies.find(([key]) => key === name)?.[1], undefined);
    }
  }
};

/** A reading with the schema's types: numbers, booleans, lists and objects. */
export const coerceReading = (document: unknown, parameter: SerialisedParameter, reading: TextTree): unknown =>
  typeof reading === 'string' && kindOf(parameter.types) === 'primitive'
    ? coerceText(reading, parameter.types)
    : coerceTree(document, parameter.schema ?? {}, reading);
