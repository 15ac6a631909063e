import { getAtPointer } from '@libs/bundle-documents';
import { resolveSchema } from '@libs/openapi-schemas';

import { parseExact } from './exact-integers';
import { ParameterStyle, parseBrackets, serialisationOf } from './parameter-serialisation';
import { coerceTree, TextTree, viewOf } from './schema-coercion';

/** A form field's `encoding` entry in the spec: how the client serialises that property. */
interface FieldEncoding {
  style: ParameterStyle;
  explode: boolean;
}

const delimiterOf: Partial<Record<ParameterStyle, string>> = {
  form: ',',
  spaceDelimited: ' ',
  pipeDelimited: '|',
  tabDelimited: '\t',
};

/** The `encoding` object of the operation's request body for one media type, read from the document. */
export const formEncodingOf = (
  document: unknown,
  operationPointer: string,
  mediaType: string,
): Record<string, FieldEncoding> => {
  const operation = getAtPointer(document, operationPointer) as { requestBody?: unknown } | undefined;
  const body = resolveSchema(document, operation?.requestBody);
  const content = (body.content ?? {}) as Record<string, { encoding?: Record<string, unknown> }>;
  const encoding = content[mediaType]?.encoding ?? {};
  return Object.fromEntries(
    Object.entries(encoding).map(([field, raw]) => {
      const declared = (raw ?? {}) as { style?: string; explode?: boolean };
      return [field, serialisationOf('query', declared)];
    }),
  );
};

/** Lists the spec says arrive joined (`types=card,sepa`, or `a|b` for pipeDelimited), split into their items. */
const splitJoined = (
  document: unknown,
  schema: unknown,
  tree: Record<string, TextTree>,
  encodings: Record<string, FieldEncoding>,
  everyList: boolean,
): Record<string, TextTree> => {
  const { properties } = viewOf(document, schema);
  const out: Record<string, TextTree> = { ...tree };
  for (const [field, value] of Object.entries(tree)) {
    if (
      typeof value !== 'string' ||
      !(field in properties) ||
      !viewOf(document, properties[field]).types.includes('array')
    ) {
      continue;
    }
    const encoding = encodings[field];
    const joined = encoding ? !encoding.explode || encoding.style !== 'form' : everyList;
    if (joined) {
      out[field] = value.split(delimiterOf[encoding?.style ?? 'form'] ?? ',');
    }
  }
  return out;
};

/** A part's `Content-Disposition` parameters: `form-data; name="a[b]"; filename="x.pdf"`. */
const dispositionOf = (headers: string): Record<string, string> => {
  const line = headers.split('\r\n').find((h) => /^content-disposition:/i.test(h)) ?? '';
  return Object.fromEntries(
    [...line.matchAll(/;\s*([A-Za-z*]+)=(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)].map((m) => [
      m[1].toLowerCase(),
      (m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1'),
    ]),
  );
};

/** One part of a multipart form: its name, its text (a file stands for itself by name) and its content type. */
export interface FormPart {
  name: string;
  value: string;
  contentType?: string;
}

/**
 * The parts of a `multipart/form-data` body. A file part stands for its file by name: the twin records what was
 * sent, not the bytes. Undefined when the body is not the multipart its boundary says.
 */
export const multipartParts = (raw: Buffer, contentType: string): FormPart[] | undefined => {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const delimiter = boundary ? `--${boundary[1] ?? boundary[2]}` : undefined;
  if (!delimiter) {
    return undefined;
  }
  const sections = raw.toString('latin1').split(delimiter);
  if (sections.length < 3 || !sections[sections.length - 1].startsWith('--')) {
    return undefined;
  }
  const parts: FormPart[] = [];
  for (const section of sections.slice(1, -1)) {
    const part = section.replace(/^\r\n/, '').replace(/\r\n$/, '');
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) {
      return undefined;
    }
    const headers = part.slice(0, split);
    const disposition = dispositionOf(headers);
    if (disposition.name === undefined) {
      return undefined;
    }
    const type = /^content-type:\s*([^;\r\n]+)/im.exec(headers)?.[1]?.trim().toLowerCase();
    parts.push({
      name: Buffer.from(disposition.name, 'latin1').toString('utf8'),
      value:
        disposition.filename !== undefined
          ? Buffer.from(disposition.filename, 'latin1').toString('utf8')
          : Buffer.from(part.slice(split + 4), 'latin1').toString('utf8'),
      ...(type && disposition.filename === undefined ? { contentType: type } : {}),
    });
  }
  return parts;
};

/** A part's JSON, when it is JSON: by its own content type, or (OpenAPI's default for objects) by its property's type. */
const jsonOf = (part: FormPart, types: string[]): unknown => {
  const declared = part.contentType !== undefined && /json/.test(part.contentType);
  const structured = (types.includes('object') || types.includes('array')) && /^\s*[[{]/.test(part.value);
  if (!declared && !structured) {
    return undefined;
  }
  try {
    return parseExact(part.value);
  } catch {
    return undefined;
  }
};

/**
 * An `application/x-www-form-urlencoded` body as the object its schema describes: bracket notation decoded
 * (`metadata[k]=v`, `items[0][price]=…`, `types[]=card`), repeated names as lists, lists the `encoding` object
 * says are joined split, and text given the schema's types. Field names stay as sent (`FriendlyName`). The second
 * reading, when there is one, also splits joined lists the spec did not declare so (Swagger 2's default `csv`).
 */
export const formBodyReadings = (
  document: unknown,
  schemaPointer: string | undefined,
  encodings: Record<string, FieldEncoding>,
  body: string | FormPart[],
): unknown[] => {
  const schema = schemaPointer ? { $ref: `#${schemaPointer}` } : {};
  let tree: Record<string, TextTree>;
  if (typeof body === 'string') {
    tree = parseBrackets(body);
  } else {
    const { properties } = viewOf(document, schema);
    const json = new Map<string, unknown>();
    const text: string[] = [];
    for (const part of body) {
      const parsed = jsonOf(part, viewOf(document, properties[part.name] ?? {}).types);
      if (parsed !== undefined) {
        json.set(part.name, parsed);
      } else {
        text.push(`${encodeURIComponent(part.name)}=${encodeURIComponent(part.value)}`);
      }
    }
    tree = parseBrackets(text.join('&'));
    for (const [name, value] of json) {
      tree[name] = value as TextTree;
    }
  }
  const declared = splitJoined(document, schema, tree, encodings, false);
  const lenient = splitJoined(document, schema, tree, encodings, true);
  // Integers beyond 2^53 are boxed as a JSON body's are, and kept exact within their bounds.
  const readings = [coerceTree(document, schema, declared, { exactIntegers: true })];
  if (JSON.stringify(lenient) !== JSON.stringify(declared)) {
    readings.push(coerceTree(document, schema, lenient, { exactIntegers: true }));
  }
  return readings;
};
