import { hashSeed, seededUuid } from '@libs/synthetic-data';
import type { ServiceCredentials } from '@libs/twin-engine';

/** Exchange ids are long opaque base64url strings; these are stable for what they name, per world seed. */
export const exchangeId = (prefix: string, seed: number, ...parts: (string | number)[]): string => {
  const words = [0, 1, 2, 3, 4, 5].map((i) => hashSeed(seed, prefix, i, ...parts));
  const bytes = Buffer.alloc(words.length * 4);
  words.forEach((word, i) => bytes.writeUInt32BE(word, i * 4));
  return `${prefix}${bytes.toString('base64url')}`;
};

/** A mailbox's Graph user id: a GUID, stable for the address. */
export const mailboxId = (seed: number, address: string): string =>
  seededUuid(hashSeed(seed, 'mailbox', address.toLowerCase()));

/** A JWT's header, as Entra ID access tokens start. */
const tokenHeader = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url');

/**
 * The access token of a mailbox's owner: what an agent or a persona sends as `Bearer` to act as them. Shaped as
 * Graph's are (a JWT naming the user in `upn`), signed with a MAC under the episode's secret: only the operator can
 * issue one.
 */
export const mailToken = (credentials: ServiceCredentials, address: string): string => {
  const upn = address.toLowerCase();
  const payload = Buffer.from(JSON.stringify({ upn })).toString('base64url');
  return `${tokenHeader}.${payload}.${Buffer.from(credentials.mac(upn), 'hex').toString('base64url')}`;
};

/** The address a token names and its MAC (hex), genuine or not; undefined for what is not a token of this shape. */
export const claimedAddress = (token: string): { address: string; mac: string } | undefined => {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== tokenHeader) {
    return undefined;
  }
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { upn?: unknown };
    return typeof claims.upn === 'string'
      ? { address: claims.upn, mac: Buffer.from(parts[2], 'base64url').toString('hex') }
      : undefined;
  } catch {
    return undefined;
  }
};

export const wellKnownFolders = {
  inbox: 'Inbox',
  sentitems: 'Sent Items',
  drafts: 'Drafts',
  deleteditems: 'Deleted Items',
  archive: 'Archive',
} as const;

export type WellKnownFolder = keyof typeof wellKnownFolders;

export const folderId = (seed: number, mailbox: string, folder: WellKnownFolder | 'root'): string =>
  exchangeId('AAMkAGF', seed, 'folder', mailbox, folder);
