import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Episode-scoped bearer tokens: 256 random bits, so no one derives one from the episode's id, seed or anything else.
 * Only their SHA-256 is kept; a presented token is hashed and compared in constant time.
 */
export const issueEpisodeToken = (): { token: string; hash: Buffer } => {
  const token = `mep_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashOf(token) };
};

const hashOf = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export const tokenOpens = (token: string, hash: Buffer): boolean => {
  const presented = hashOf(token);
  return presented.length === hash.length && timingSafeEqual(presented, hash);
};
