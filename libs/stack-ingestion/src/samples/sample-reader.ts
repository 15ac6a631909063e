import * as path from 'node:path';

import { BundleFiles, parseDocument, IngestionError } from '@libs/bundle-documents';
import { ServiceModel, canonicalName as canonical, SampleProfile } from '@libs/stack-model';

import { fitRecords } from './sample-fitting';

type Row = Record<string, unknown>;

/** RFC 4180 CSV: quoted fields, doubled quotes, commas and newlines inside quotes. Numbers and booleans are typed. */
export const parseCsv = (file: string, text: string): Row[] => {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        field += char;
      }
    } else if (char === '"') {
      quoted = true;
    } else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') {
        i++;
      }
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += char;
    }
  }
  if (quoted) {
    throw IngestionError.single('DOCUMENT_UNPARSABLE', {
      file,
      line: text.split('\n').length,
      pointer: '',
      message: 'invalid CSV: a quoted field never ends',
    });
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  const [header, ...body] = rows.filter((r) => r.some((cell) => cell !== ''));
  if (!header) {
    return [];
  }
  return body.map((cells, index) => {
    if (cells.length !== header.length) {
      throw IngestionError.single('DOCUMENT_UNPARSABLE', {
        file,
        line: index + 2,
        pointer: '',
        message: `invalid CSV: ${cells.length} fields where the header has ${header.length}`,
      });
    }
    return Object.fromEntries(header.map((name, column) => [name.trim(), typed(cells[column])]));
  });
};

const typed = (cell: string): unknown => {
  if (/^-?\d+(\.\d+)?$/.test(cell)) {
    return Number(cell);
  }
  if (cell === 'true' || cell === 'false') {
    return cell === 'true';
  }
  return cell;
};

/** The records a JSON sample holds: an array, or the first array property of an object (`{ "data": [...] }`). */
const recordsOf = (value: unknown): Row[] => {
  if (Array.isArray(value)) {
    return value.filter((item): item is Row => item !== null && typeof item === 'object' && !Array.isArray(item));
  }
  if (value && typeof value === 'object') {
    const array = Object.values(value).find(Array.isArray);
    return array ? recordsOf(array) : [value as Row];
  }
  return [];
};

/** A HAR's responses, grouped by the resource whose collection or item path the request hit. */
const harRecords = (value: unknown, services: ServiceModel[]): Map<string, Row[]> => {
  const entries = ((value as { log?: { entries?: unknown[] } })?.log?.entries ?? []) as {
    request?: { url?: string };
    response?: { content?: { text?: string; mimeType?: string } };
  }[];
  const byTarget = new Map<string, Row[]>();
  for (const entry of entries) {
    const text = entry.response?.content?.text;
    if (!text || !/json/i.test(entry.response?.content?.mimeType ?? 'json')) {
      continue;
    }
    let url: URL;
    try {
      url = new URL(entry.request?.url ?? '');
    } catch {
      continue;
    }
    for (const service of services) {
      for (const resource of service.resources) {
        const templates = [resource.collectionPath, resource.itemPath].filter((p): p is string => p !== undefined);
        const hit = templates.some((template) =>
          new RegExp(
            `${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/]+')}$`,
          ).test(url.pathname),
        );
        if (hit) {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            continue;
          }
          const key = `${service.name}/${resource.name}`;
          byTarget.set(key, [...(byTarget.get(key) ?? []), ...recordsOf(body)]);
        }
      }
    }
  }
  return byTarget;
};

/**
 * Reads the bundle's samples (JSON, CSV, HAR) and fits a profile per resource. A JSON or CSV sample names its
 * resource by file name (`samples/suppliers.csv` → the `suppliers` resource or entity); a HAR is matched by the
 * paths its requests hit.
 */
export const readSamples = (
  files: BundleFiles,
  sampleFiles: string[],
  services: ServiceModel[],
  entityNames: string[],
): SampleProfile[] => {
  const profiles: SampleProfile[] = [];
  const resourceByName = new Map(
    services.flatMap((s) =>
      s.resources.map((r) => [canonical(r.name.split('.').pop() ?? r.name), `${s.name}/${r.name}`] as const),
    ),
  );
  const entityByName = new Map(entityNames.map((name) => [canonical(name), name]));
  for (const file of sampleFiles) {
    const content = files.read(file);
    if (/\.har$/i.test(file)) {
      for (const [target, records] of harRecords(parseDocument(file.replace(/\.har$/i, '.json'), content), services)) {
        profiles.push({ target, file, records: records.length, fields: fitRecords(records) });
      }
      continue;
    }
    const records = /\.csv$/i.test(file)
      ? parseCsv(file, content.toString('utf8'))
      : recordsOf(parseDocument(file, content));
    const stem = canonical(path.posix.basename(file).replace(/\.[^.]+$/, ''));
    const target = resourceByName.get(stem) ?? entityByName.get(stem);
    if (!target) {
      throw IngestionError.single('MANIFEST_INVALID', {
        file,
        pointer: '',
        message: `sample names no resource or entity ("${stem}"); name the file after one`,
      });
    }
    profiles.push({ target, file, records: records.length, fields: fitRecords(records) });
  }
  return profiles;
};
