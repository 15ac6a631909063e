import { hashSeed } from '@libs/synthetic-data';
import type { ServiceCredentials } from '@libs/twin-engine';

/** Slack's id alphabet: upper-case letters and digits. */
const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

/** A stable Slack-shaped id (`U…`, `C…`, `D…`, `F…`, 11 characters) for something, given the world's seed. */
export const slackId = (prefix: 'U' | 'C' | 'G' | 'D' | 'F' | 'T', seed: number, ...parts: (string | number)[]) => {
  let hash = hashSeed(seed, prefix, ...parts);
  let id = prefix;
  for (let i = 0; i < 10; i++) {
    id += alphabet[hash % alphabet.length];
    hash = (Math.floor(hash / alphabet.length) ^ hashSeed(hash, i)) >>> 0;
  }
  return id;
};

export const teamId = (seed: number): string => slackId('T', seed, 'team');

/**
 * A user token for an employee: what an agent (or a persona) acting as that person sends as `Bearer`. The MAC is under
 * the episode's secret, so nobody but the operator can make one.
 */
export const slackToken = (credentials: ServiceCredentials, employeeId: string): string =>
  `xoxp-${credentials.mac(employeeId)}-${employeeId}`;

/**
 * The employee a user token names and its MAC, genuine or not: `xoxp-<mac>-<employee>`, or any `xoxp-…-<employee>`
 * (tokens were once made that way), so a refused one is logged with whom it claimed to be.
 */
export const claimedEmployee = (token: string): { employee: string; mac: string } | undefined => {
  const match = /^xoxp-([0-9a-f]{32})-(.+)$/.exec(token) ?? /^xoxp-(?:.*-)?([^-]*)-([^-]+)$/.exec(token);
  return match ? { mac: match[1], employee: match[2] } : undefined;
};

/** Slack timestamps: seconds and a six-digit sequence, unique and ordered within a conversation. */
export const slackTs = (iso: string, sequence: number): string =>
  `${Math.floor(Date.parse(iso) / 1000)}.${String(sequence % 1_000_000).padStart(6, '0')}`;

/** Slack's opaque cursors: base64 of where the next page starts. */
export const encodeCursor = (offset: number): string => Buffer.from(`next:${offset}`).toString('base64');

export const decodeCursor = (cursor: string): number | undefined => {
  const match = /^next:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match ? Number(match[1]) : undefined;
};
