import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * API keys: `mk_<id>_<secret>`. The id (public, 16 hex) finds the stored row; the secret (256 random bits) is checked
 * against its scrypt hash with the row's own salt. Only the hash and salt are stored: the key is shown once.
 */
const keyPattern = /^mk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface MintedKey {
  id: string;
  /** The whole key, to show once and never store. */
  token: string;
  salt: Buffer;
  hash: Buffer;
}

/** scrypt's cost: 16 MiB and a few tens of milliseconds per check, paid once per key and process (see KeyVerifier). */
const scryptParameters = { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const hashLength = 32;

const scryptHash = (secret: string, salt: Buffer): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(secret, salt, hashLength, scryptParameters, (error, derived) => (error ? reject(error) : resolve(derived))),
  );

export const mintApiKey = async (): Promise<MintedKey> => {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const salt = randomBytes(16);
  return { id, token: `mk_${id}_${secret}`, salt, hash: await scryptHash(secret, salt) };
};

/** The key's id and secret, or undefined when the text is not shaped like a key at all. */
export const parseApiKey = (token: string): { id: string; secret: string } | undefined => {
  const match = keyPattern.exec(token);
  return match ? { id: match[1], secret: match[2] } : undefined;
};

/** Whether the secret is the one hashed, compared in constant time. */
export const secretMatches = async (secret: string, salt: Buffer, hash: Buffer): Promise<boolean> => {
  const derived = await scryptHash(secret, salt);
  return derived.length === hash.length && timingSafeEqual(derived, hash);
};

/** A fast fingerprint of a whole key, for a process's cache of keys it has already checked (never stored). */
export const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');
