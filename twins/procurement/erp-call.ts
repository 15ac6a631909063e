import { WorldRecord } from '@libs/synthetic-data';
import {
  domainEvents,
  EpisodeEvent,
  isOutcome,
  jsonResponse,
  Outcome,
  PackBehaviour,
  PackCall,
  ServiceCredentials,
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

/**
 * A user's API token (an employee's, or a supplier contact's for the supplier portal): `erp_<mac>_<user id>`, the MAC
 * under the episode's secret, so only the operator can issue one.
 */
export const erpToken = (credentials: ServiceCredentials, userId: string): string =>
  `erp_${credentials.mac(userId)}_${userId}`;

const bearer = (call: PackCall): string | undefined => {
  const header = call.request.headers.authorization;
  return header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
};

/** The user a token names and its MAC, genuine or not (`erp_<anything>_<user id>`, as tokens were once made too). */
const claimedUser = (token: string): { userId: string; mac: string } | undefined => {
  const match = /^erp_([^_]*)_(.+)$/.exec(token);
  return match ? { mac: match[1], userId: match[2] } : undefined;
};

/** The token a call presents and the user it claims to be: what a refused token is logged with. */
export const presentedToken = (call: PackCall): { claimed?: string } | undefined => {
  const token = bearer(call);
  if (!token) {
    return undefined;
  }
  const claimed = claimedUser(token)?.userId;
  return claimed !== undefined ? { claimed } : {};
};

export const erpError = (status: number, code: string, message: string, details?: WorldRecord[]): Outcome => ({
  response: jsonResponse(status, { error: { code, message, ...(details ? { details } : {}) } }),
  events: [],
});

/** The user behind the bearer token; every call needs one. */
export const caller = (call: PackCall): ErpUser | Outcome => {
  const token = bearer(call);
  if (!token) {
    return erpError(401, 'unauthorized', 'a bearer token is required');
  }
  const claimed = claimedUser(token);
  const user =
    claimed && call.credentials.verify(claimed.userId, claimed.mac)
      ? (call.state.get(call.table('users'), claimed.userId) as ErpUser | undefined)
      : undefined;
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
