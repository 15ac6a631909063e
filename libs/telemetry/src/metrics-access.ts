import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Whether an `Authorization` header carries `key` as a bearer token, compared in constant time; always true without a
 * key. `/metrics` of a process agents reach (the gateway, `mirror up`'s episode API) is the operator's only: its counts
 * span every episode, which no agent may read.
 */
export const metricsAllowed = (authorization: string | string[] | undefined, key: string | undefined): boolean =>
  key === undefined ||
  (typeof authorization === 'string' &&
    authorization.startsWith('Bearer ') &&
    timingSafeEqual(digest(authorization.slice('Bearer '.length).trim()), digest(key)));

/** Who may read a Nest app's `/metrics`: the holder of `key`, or anyone the app lets in when it has none. */
export abstract class MetricsAccess {
  abstract readonly key: string | undefined;
}
