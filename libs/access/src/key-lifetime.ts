/**
 * How long a key lives when its maker does not say: a leaked or forgotten key stops working on its own. Keys that
 * never expire are still made, but only when asked for (`--expires never`, `expires_at: null`).
 */
export const defaultKeyLifetimeDays = 90;

/** The expiry of a key made now with the default lifetime, as ISO 8601. */
export const defaultKeyExpiry = (now = new Date()): string =>
  new Date(now.getTime() + defaultKeyLifetimeDays * 86_400_000).toISOString();
