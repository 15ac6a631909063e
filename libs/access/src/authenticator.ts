import { parseApiKey, secretMatches, tokenDigest } from './api-keys';
import { isRole, Role } from './roles';

/** A key as stored: its hash and salt, never the key. */
export interface StoredApiKey {
  id: string;
  tenantId: string;
  /** Checked on every use: a row edited to hold no role authenticates nobody. */
  role: string;
  salt: Buffer;
  hash: Buffer;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** Where keys are found by their public id: the one lookup that is not scoped to a tenant, since it finds the tenant. */
export interface ApiKeyLookup {
  findForAuthentication(keyId: string): Promise<StoredApiKey | undefined>;
}

/** Who a request acts as: every tenant-owned read and write takes `tenantId` from here, never from the request. */
export interface Principal {
  tenantId: string;
  role: Role;
  /** As the evidence trail names it: `key:<id>`, or `local` for `mirror up`'s single user. */
  actor: string;
}

/** A refused credential: 401 when no valid key was shown, 403 when the key is valid but may not act. */
export class AccessError extends Error {
  constructor(
    readonly status: 401 | 403,
    message: string,
  ) {
    super(message);
  }
}

const cacheSize = 1_000;

/**
 * Turns an `Authorization` header into a principal. The key's row is read on every request, so a revocation or an
 * expiry takes effect at once; scrypt runs once per key and process, later uses compare a SHA-256 of the whole key
 * with the one that passed.
 */
export class Authenticator {
  private readonly verified = new Map<string, { digest: string; hash: string }>();

  constructor(
    private readonly keys: ApiKeyLookup,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async authenticate(authorization: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === '') {
      throw new AccessError(401, 'missing API key: send Authorization: Bearer <key>');
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!bearer) {
      throw new AccessError(401, 'Authorization must be "Bearer <key>"');
    }
    const parsed = parseApiKey(bearer[1]);
    if (!parsed) {
      throw new AccessError(401, 'the bearer token is not a Mirror API key (mk_<id>_<secret>)');
    }
    const stored = await this.keys.findForAuthentication(parsed.id);
    if (!stored || !(await this.matches(bearer[1], parsed.secret, stored))) {
      throw new AccessError(401, 'unknown API key');
    }
    // Said only to whoever holds the whole key: the state of a key is no one else's business.
    if (stored.revokedAt !== null) {
      throw new AccessError(401, `API key ${stored.id} was revoked at ${stored.revokedAt}`);
    }
    if (stored.expiresAt !== null && Date.parse(stored.expiresAt) <= this.now().getTime()) {
      throw new AccessError(401, `API key ${stored.id} expired at ${stored.expiresAt}`);
    }
    if (!isRole(stored.role)) {
      throw new AccessError(403, `API key ${stored.id} holds no known role ("${stored.role.slice(0, 32)}")`);
    }
    return { tenantId: stored.tenantId, role: stored.role, actor: `key:${stored.id}` };
  }

  private async matches(token: string, secret: string, stored: StoredApiKey): Promise<boolean> {
    const digest = tokenDigest(token);
    const hash = stored.hash.toString('hex');
    const known = this.verified.get(stored.id);
    if (known && known.digest === digest && known.hash === hash) {
      return true;
    }
    if (!(await secretMatches(secret, stored.salt, stored.hash))) {
      return false;
    }
    if (this.verified.size >= cacheSize) {
      this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(stored.id, { digest, hash });
    return true;
  }
}
