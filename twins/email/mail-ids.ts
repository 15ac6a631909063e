import { hashSeed, seededUuid } from '@libs/synthetic-data';

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

/** The access token of a mailbox's owner: what an agent or a persona sends as `Bearer` to act as them. */
export const mailToken = (seed: number, address: string): string =>
  `graph.${hashSeed(seed, 'mail-token', address.toLowerCase()).toString(36)}.${address.toLowerCase().replace(/[^a-z0-9]/g, '-')}`;

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
