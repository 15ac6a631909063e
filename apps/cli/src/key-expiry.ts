import { defaultKeyExpiry, defaultKeyLifetimeDays } from '@libs/access';

import { UsageError } from './cli-output';

const units = { h: 3_600_000, d: 86_400_000 } as const;

export const keyExpiryHelp = `a lifetime (12h, 90d), an ISO 8601 date-time, or never (default: ${defaultKeyLifetimeDays}d)`;

/**
 * `--expires`: a lifetime from now (`12h`, `90d`), an ISO 8601 date-time, or `never` (null); without it, the default
 * lifetime. A key that would be born expired is a usage error, not a useless row.
 */
export const keyExpiry = (text: string | undefined, now = new Date()): string | null => {
  if (text === undefined) {
    return defaultKeyExpiry(now);
  }
  if (text === 'never') {
    return null;
  }
  const lifetime = /^(\d{1,5})([hd])$/.exec(text);
  const at = lifetime
    ? now.getTime() + Number(lifetime[1]) * units[lifetime[2] as keyof typeof units]
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)
      ? Date.parse(text)
      : NaN;
  if (Number.isNaN(at)) {
    throw new UsageError(
      `--expires ${text}: give a lifetime (12h, 90d), an ISO 8601 date-time with its zone, or never`,
    );
  }
  if (at <= now.getTime()) {
    throw new UsageError(`--expires ${text}: must be in the future`);
  }
  return new Date(at).toISOString();
};
