import { hashSeed, WorldRecord } from '@libs/synthetic-data';
import {
  domainEvents,
  EpisodeEvent,
  isOutcome,
  jsonResponse,
  Outcome,
  PackBehaviour,
  PackCall,
} from '@libs/twin-engine';

import type { ErpDomainEvents } from './erp-events';

export type Role = 'agent' | 'requester' | 'buyer' | 'approver' | 'finance' | 'executive' | 'supplier';

export interface ErpUser extends WorldRecord {
  id: string;
  name: string;
  email: string;
  role: Role;
  approval_limit: number;
  supplier_id: string | null;
  department: string | null;
  cost_centre: string | null;
}

/** A user's API token: an employee's, or a supplier contact's for the supplier portal. */
export const erpToken = (seed: number, userId: string): string =>
  `erp_${hashSeed(seed, 'erp-token', userId).toString(36)}${hashSeed(seed, 'erp-token-2', userId).toString(36)}_${userId.toLowerCase()}`;

export const erpError = (status: number, code: string, message: string, details?: WorldRecord[]): Outcome => ({
  response: jsonResponse(status, { error: { code, message, ...(details ? { details } : {}) } }),
  events: [],
});

/** The user behind the bearer token; every call needs one. */
export const caller = (call: PackCall): ErpUser | Outcome => {
  const header = call.request.headers.authorization;
  const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
  if (!token) {
    return erpError(401, 'unauthorized', 'a bearer token is required');
  }
  const entry = call.state.get(call.table('tokens'), token) as { user: string } | undefined;
  const user = entry ? (call.state.get(call.table('users'), entry.user) as ErpUser | undefined) : undefined;
  return user ?? erpError(401, 'unauthorized', 'the token is not valid');
};

/** Runs an operation for a caller whose role is one of `roles`. */
export const as =
  (roles: Role[], body: (call: PackCall, user: ErpUser) => Outcome): PackBehaviour =>
  (call) => {
    const user = caller(call);
    if (isOutcome(user)) {
      return user;
    }
    if (!roles.includes(user.role)) {
      return erpError(
        403,
        'forbidden',
        `a ${user.role} may not ${call.operationId.replace(/([A-Z])/g, ' $1').toLowerCase()}`,
      );
    }
    return body(call, user);
  };

export const ok = (status: number, body: WorldRecord, events: EpisodeEvent[]): Outcome => ({
  response: jsonResponse(status, body),
  events,
});

export const record = <T extends WorldRecord>(call: PackCall, table: string, id: string | undefined): T | undefined =>
  id === undefined ? undefined : (call.state.get(call.table(table), id) as T | undefined);

export const notFound = (what: string, id: string): Outcome => erpError(404, 'not_found', `no ${what} ${id}`);

export const created = (
  call: PackCall,
  table: string,
  id: string,
  value: WorldRecord,
  parentId?: string,
): EpisodeEvent => ({
  type: 'record.created',
  table: call.table(table),
  id,
  record: value,
  ...(parentId !== undefined ? { parentId } : {}),
});

export const updated = (call: PackCall, table: string, id: string, value: WorldRecord): EpisodeEvent => ({
  type: 'record.updated',
  table: call.table(table),
  id,
  record: value,
});

/** The ERP's domain events, checked against the published map (`erp-events.ts`). */
export const domainEvent = domainEvents<ErpDomainEvents>();

/** The next number in a series (`PO-2026-0007`): one past the records the episode can see. */
export const nextNumber = (call: PackCall, table: string, prefix: string, width = 4): string => {
  let n = call.state.ids(call.table(table)).length + 1;
  const format = (k: number) => `${prefix}${String(k).padStart(width, '0')}`;
  while (call.state.get(call.table(table), format(n))) {
    n++;
  }
  return format(n);
};

export const money = (value: number): number => Math.round(value * 100) / 100;

/** Unit prices keep four decimals: a bolt at 0.216 must not become 0.22. */
export const toUnitPrice = (value: number): number => Math.round(value * 10_000) / 10_000;

export const body = <T>(call: PackCall): T => call.input?.body as T;
