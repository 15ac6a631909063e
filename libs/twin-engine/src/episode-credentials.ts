import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh episode secret: 256 bits from the system's CSPRNG, so no seed, id or clock predicts it. */
export const newEpisodeSecret = (): string => randomBytes(32).toString('base64url');

/**
 * What a pack signs and checks its tokens with, for one service of one episode: a MAC of the principal under the
 * episode's secret. A token names its principal in the clear (as products' tokens often do) and is genuine only if its
 * MAC is; knowing the seed, every id and every other token of the world tells nothing about it.
 */
export interface ServiceCredentials {
  /** The MAC of `principal` for this service: 32 lower-case hex digits (128 bits). */
  mac(principal: string): string;
  /** Whether `mac` is the MAC of `principal`, in constant time. */
  verify(principal: string, mac: string): boolean;
}

/** The episode's credentials: one key, a MAC per (service, principal), so a token of one service opens no other. */
export class EpisodeCredentials {
  private readonly services = new Map<string, ServiceCredentials>();

  constructor(private readonly secret: string) {}

  for(service: string): ServiceCredentials {
    let credentials = this.services.get(service);
    if (!credentials) {
      // Every call checks its token, often more than once (guard, principal, behaviour): MACs are kept, bounded so
      // that a caller sending endless made-up principals costs memory no more than this.
      const known = new Map<string, string>();
      const mac = (principal: string): string => {
        let value = known.get(principal);
        if (value === undefined) {
          value = createHmac('sha256', this.secret).update(`${service}\u0000${principal}`).digest('hex').slice(0, 32);
          if (known.size >= 1024) {
            known.clear();
          }
          known.set(principal, value);
        }
        return value;
      };
      credentials = {
        mac,
        verify: (principal, presented) => {
          const expected = Buffer.from(mac(principal));
          const given = Buffer.from(presented);
          return given.length === expected.length && timingSafeEqual(given, expected);
        },
      };
      this.services.set(service, credentials);
    }
    return credentials;
  }
}
