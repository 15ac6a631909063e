import type { WorldRecord } from '@libs/synthetic-data';
import { domainEvents, EpisodeEvent, jsonResponse, Outcome, PackCall, TwinResponse } from '@libs/twin-engine';

import { SlackDomainEvents } from './slack-events';
import { claimedEmployee, decodeCursor, encodeCursor } from './slack-ids';

/** Slack answers application errors with HTTP 200 and `ok: false`; clients (and the SDK) read `error`. */
export const slackError = (error: string, extra: Record<string, unknown> = {}): Outcome => ({
  response: jsonResponse(200, { ok: false, error, ...extra }),
  events: [],
});

export const slackOk = (body: Record<string, unknown>, events: EpisodeEvent[] = []): Outcome => ({
  response: jsonResponse(200, { ok: true, ...body }),
  events,
});

/** Transport-level failures (unknown method, injected faults) in Slack's shape; Slack spells it `ratelimited`. */
export const slackErrorResponse = (status: number, code: string): TwinResponse =>
  jsonResponse(status, { ok: false, error: code === 'rate_limited' ? 'ratelimited' : code });

/**
 * A method's arguments the way Slack reads them: the query string and the body together, the body either
 * form-encoded (what `@slack/web-api` sends, with objects as JSON text) or JSON.
 */
export const readArgs = (call: PackCall): Record<string, unknown> | 'invalid_json' | 'invalid_form_data' => {
  // Read once per request: the pack's principal (who calls) and the method both need them.
  let args = parsedArgs.get(call.request);
  if (!args) {
    args = parseArgs(call);
    parsedArgs.set(call.request, args);
  }
  return typeof args === 'string' ? args : { ...args };
};

const parsedArgs = new WeakMap<PackCall['request'], ReturnType<typeof parseArgs>>();

const parseArgs = (call: PackCall): Record<string, unknown> | 'invalid_json' | 'invalid_form_data' => {
  const args: Record<string, unknown> = Object.fromEntries(call.request.query.entries());
  const body = call.request.body;
  if (!body || body.length === 0) {
    return args;
  }
  const type = (call.request.headers['content-type'] ?? '').toLowerCase();
  const text = body.toString('utf8');
  if (type.includes('application/json')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
        return 'invalid_json';
      }
      return { ...args, ...(parsed as Record<string, unknown>) };
    } catch {
      return 'invalid_json';
    }
  }
  if (type.includes('application/x-www-form-urlencoded') || type === '') {
    for (const [key, value] of new URLSearchParams(text)) {
      args[key] = value;
    }
    return args;
  }
  if (type.includes('multipart/form-data')) {
    // Uploads: the twin keeps metadata only, so the parts' names and text values are enough.
    for (const match of text.matchAll(
      /name="([^"]+)"(?:; filename="([^"]*)")?\r\n(?:[^\r\n]+\r\n)*\r\n([\s\S]*?)\r\n--/g,
    )) {
      args[match[1]] = match[2] !== undefined ? { filename: match[2], size: Buffer.byteLength(match[3]) } : match[3];
    }
    return args;
  }
  return 'invalid_form_data';
};

export const stringArg = (args: Record<string, unknown>, name: string): string | undefined => {
  const value = args[name];
  if (value === undefined || value === null || value === '') {
    return undefined;
  }
  // JSON bodies carry numbers and booleans as such, form bodies as text; objects (blocks) travel as JSON text.
  if (typeof value === 'string') {
    return value;
  }
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
};

export const boolArg = (args: Record<string, unknown>, name: string): boolean => {
  const value = args[name];
  return value === true || value === 'true' || value === '1' || value === 1;
};

export const intArg = (args: Record<string, unknown>, name: string, fallback: number, max: number): number => {
  const value = Number(args[name]);
  return Number.isFinite(value) && value > 0 ? Math.min(Math.floor(value), max) : fallback;
};

/** The caller's Slack user, from `Authorization: Bearer` or a `token` argument, as Slack accepts both. */
export const authenticate = (
  call: PackCall,
  args: Record<string, unknown>,
): { user: string; employee: string } | Outcome => {
  const header = call.request.headers.authorization;
  const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : stringArg(args, 'token');
  if (!token) {
    return slackError('not_authed');
  }
  const claimed = claimedEmployee(token);
  const found =
    claimed && call.credentials.verify(claimed.employee, claimed.mac)
      ? (call.state.get(call.table('principals'), claimed.employee) as { user: string; employee: string } | undefined)
      : undefined;
  return found ?? slackError('invalid_auth');
};

/** The token a call presents (header or `token` argument) and the employee it names, genuine or not. */
export const presentedToken = (call: PackCall): { claimed?: string } | undefined => {
  const args = readArgs(call);
  const header = call.request.headers.authorization;
  const token = header?.startsWith('Bearer ')
    ? header.slice('Bearer '.length).trim()
    : typeof args === 'string'
      ? undefined
      : stringArg(args, 'token');
  if (!token) {
    return undefined;
  }
  const claimed = claimedEmployee(token)?.employee;
  return claimed !== undefined ? { claimed } : {};
};

/** One page of a list, Slack style: `limit` and an opaque `cursor`, `next_cursor` empty on the last page. */
export const page = <T>(
  items: T[],
  args: Record<string, unknown>,
  defaultLimit: number,
  maxLimit: number,
): { items: T[]; nextCursor: string } | 'invalid_cursor' => {
  const cursor = stringArg(args, 'cursor');
  const start = cursor === undefined ? 0 : decodeCursor(cursor);
  if (start === undefined || start > items.length) {
    return 'invalid_cursor';
  }
  const limit = intArg(args, 'limit', defaultLimit, maxLimit);
  const end = start + limit;
  return { items: items.slice(start, end), nextCursor: end < items.length ? encodeCursor(end) : '' };
};

/** `page` over a lazy sequence: reads only as far as the page needs, so the newest 20 of 100,000 cost 21. */
export const pageOf = <T>(
  items: Iterable<T>,
  args: Record<string, unknown>,
  defaultLimit: number,
  maxLimit: number,
): { items: T[]; nextCursor: string } | 'invalid_cursor' => {
  const cursor = stringArg(args, 'cursor');
  const start = cursor === undefined ? 0 : decodeCursor(cursor);
  if (start === undefined) {
    return 'invalid_cursor';
  }
  const limit = intArg(args, 'limit', defaultLimit, maxLimit);
  const taken: T[] = [];
  let index = 0;
  for (const item of items) {
    if (index >= start + limit) {
      return { items: taken, nextCursor: encodeCursor(start + limit) };
    }
    if (index >= start) {
      taken.push(item);
    }
    index++;
  }
  return { items: taken, nextCursor: '' };
};

/** Slack's domain events, checked against the published map (`slack-events.ts`). */
export const domainEvent = domainEvents<SlackDomainEvents>();

export const created = (
  call: PackCall,
  table: string,
  id: string,
  record: WorldRecord,
  parentId?: string,
): EpisodeEvent => ({
  type: 'record.created',
  table: call.table(table),
  id,
  record,
  ...(parentId !== undefined ? { parentId } : {}),
});

export const updated = (call: PackCall, table: string, id: string, record: WorldRecord): EpisodeEvent => ({
  type: 'record.updated',
  table: call.table(table),
  id,
  record,
});

export const deleted = (call: PackCall, table: string, id: string): EpisodeEvent => ({
  type: 'record.deleted',
  table: call.table(table),
  id,
});
