import * as qs from 'qs';

import { getAtPointer } from '@libs/bundle-documents';
import { resolveSchema } from '@libs/openapi-schemas';

import { bracketOptions, ParameterStyle, serialisationOf } from './parameter-serialisation';
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

/**
 * A `multipart/form-data` body as `name=value` text in form encoding, so that bracket names decode the same way as
 * in a urlencoded form. A file part stands for its file by name: the twin records what was sent, not the bytes.
 * Undefined when the body is not the multipart its boundary says.
 */
export const multipartAsForm = (raw: Buffer, contentType: string): string | undefined => {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const delimiter = boundary ? `--${boundary[1] ?? boundary[2]}` : undefined;
  if (!delimiter) {
    return undefined;
  }
  const text = raw.toString('latin1');
  const sections = text.split(delimiter);
  if (sections.length < 3 || !sections[sections.length - 1].startsWith('--')) {
    return undefined;
  }
  const fields: string[] = [];
  for (const section of sections.slice(1, -1)) {
    const part = section.replace(/^\r\n/, '').replace(/\r\n$/, '');
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) {
      return undefined;
    }
    const disposition = dispositionOf(part.slice(0, split));
    if (disposition.name === undefined) {
      return undefined;
    }
    const value =
      disposition.filename !== undefined
        ? disposition.filename
        : Buffer.from(part.slice(split + 4), 'latin1').toString('utf8');
    fields.push(
      `${encodeURIComponent(Buffer.from(disposition.name, 'latin1').toString('utf8'))}=${encodeURIComponent(value)}`,
    );
  }
  return fields.join('&');
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
  text: string,
): unknown[] => {
  const schema = schemaPointer ? { $ref: `#${schemaPointer}` } : {};
  const tree = qs.parse(text, bracketOptions) as Record<string, TextTree>;
  const declared = splitJoined(document, schema, tree, encodings, false);
  const lenient = splitJoined(document, schema, tree, encodings, true);
  const readings = [coerceTree(document, schema, declared)];
  if (JSON.stringify(lenient) !== JSON.stringify(declared)) {
    readings.push(coerceTree(document, schema, lenient));
  }
  return readings;
};
