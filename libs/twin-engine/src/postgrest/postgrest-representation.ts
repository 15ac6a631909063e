import type { WorldRecord } from '@libs/synthetic-data';

import type { TwinResponse } from '../twin-http';
import { PostgrestFault } from './postgrest-fault';
import { Representation } from './postgrest-request';

const json = 'application/json; charset=utf-8';

const csvCell = (value: unknown): string => {
  if (value === null || value === undefined) {
    return '';
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

const stripNulls = (row: WorldRecord): WorldRecord =>
  Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null));

/** Rows in the representation asked for: an array, one object (406 unless exactly one) or CSV. */
export const represent = (
  rows: WorldRecord[],
  representation: Representation,
  status: number,
  headers: Record<string, string>,
): TwinResponse => {
  const shaped = representation.stripNulls ? rows.map(stripNulls) : rows;
  switch (representation.kind) {
    case 'object':
      if (shaped.length !== 1) {
        throw new PostgrestFault(
          406,
          'PGRST116',
          'JSON object requested, multiple (or no) rows returned',
          `The result contains ${shaped.length} rows`,
        );
      }
      return {
        status,
        headers: { 'content-type': 'application/vnd.pgrst.object+json; charset=utf-8', ...headers },
        body: shaped[0],
      };
    case 'csv': {
      const columns = shaped.length > 0 ? Object.keys(shaped[0]) : [];
      const lines = [columns.join(','), ...shaped.map((row) => columns.map((c) => csvCell(row[c])).join(','))];
      return { status, headers: { 'content-type': 'text/csv; charset=utf-8', ...headers }, body: lines.join('\n') };
    }
    case 'array':
      return { status, headers: { 'content-type': json, ...headers }, body: shaped };
  }
};
