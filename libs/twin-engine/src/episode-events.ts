import { createHash } from 'node:crypto';

import type { ActorKind } from '@libs/evidence-trail';
import type { Redaction } from '@libs/redaction';
import type { WorldRecord } from '@libs/synthetic-data';

/**
 * What an episode's event log holds. Record events carry the whole resulting record, so replay needs no logic. What
 * was redacted from an event before it was stored (secrets, personal data that is not the world's) is noted on it by
 * kind and place, never the value.
 */
export type EpisodeEvent = (
  | { type: 'record.created'; table: string; id: string; parentId?: string; record: WorldRecord }
  | { type: 'record.replaced' | 'record.updated'; table: string; id: string; record: WorldRecord }
  | { type: 'record.deleted'; table: string; id: string }
  | { type: 'operation.called'; service: string; operationId: string; status: number }
  /**
   * A write the twin refused (403, 409, 422…) from a caller it knows, or any call whose credential the twin refused
   * (401): it changes nothing, but an attempt to act beyond one's rights, or as someone else, is part of the record a
   * compliance reviewer reads. `claimed` is the principal a refused credential names (never the event's actor: the
   * caller is not that person).
   */
  | {
      type: 'operation.refused';
      service: string;
      operationId: string;
      status: number;
      reason: string;
      claimed?: string;
    }
  /**
   * What happened in the product's own terms (`slack.message.posted`, `email.sent`, `erp.po.submitted`), for
   * scenarios and graders; it changes no state, the record events beside it do.
   */
  | { type: 'domain'; name: string; service: string; data: Record<string, unknown> }
  /**
   * The business clock jumps to `at` (a scenario's "two business days later"); later events tick on from there, one
   * second each, so replay gives the same times. `key`: the move's own (a workflow's activity), so the same move
   * retried after its answer was lost adds no second event.
   */
  | { type: 'clock.set'; at: string; key?: string }
  /**
   * The episode has ended (its workflow concluded): from here its twins answer reads and refuse writes, operator
   * patches, faults and clock moves included, so nothing done after the end changes what is graded. A reset or an
   * earlier fork starts a new episode; this one stays as graded.
   */
  | { type: 'episode.closed' }
  /**
   * The answer to a write sent with an `Idempotency-Key`: the same key again gets this answer and changes nothing, so a
   * client that retries after a crash (a persona's activity) never acts twice.
   */
  | {
      type: 'idempotency.recorded';
      key: string;
      response: RecordedResponse;
      /** Who sent it to which operation: the key answers only the same caller's same request (as Stripe's do). */
      scope?: string;
    }
) & { redactions?: Redaction[] };

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  text?: string;
}

export interface LoggedEvent {
  seq: number;
  /** The episode's simulated clock when the event happened (ISO 8601). */
  at: string;
  /** The operation that caused it, for audit and graders. */
  operationId: string;
  /**
   * Who caused it, from the call's credentials (an employee id, or an outside party's address); absent for setup,
   * clock jumps and twins that do not authenticate.
   */
  actor?: string;
  event: EpisodeEvent;
}

/** A domain event of the log as workflows and transcripts read it (clock moves and setup left out). */
export interface DomainEventOfLog {
  seq: number;
  at: string;
  /** Who caused it, by the twin's credentials (an employee id, or an outside party's address), when known. */
  actor?: string;
  name: string;
  service: string;
  data: Record<string, unknown>;
}

/** The log's domain events, in order: what the episode workflow reacts to and the episode's story is told from. */
export const domainEventsOf = (logged: readonly LoggedEvent[]): DomainEventOfLog[] =>
  logged.flatMap((entry) =>
    entry.event.type === 'domain'
      ? [
          {
            seq: entry.seq,
            at: entry.at,
            ...(entry.actor !== undefined ? { actor: entry.actor } : {}),
            name: entry.event.name,
            service: entry.event.service,
            data: entry.event.data,
          },
        ]
      : [],
  );

/**
 * A page of the log for a reader that records what it reads (a workflow): at most this many entries and about this
 * many bytes of JSON, at least one entry. Temporal warns at 512 KB and refuses at 2 MB per payload.
 */
export const logPage = { entries: 500, bytes: 256 * 1024 } as const;

export const pageOfLog = (logged: readonly LoggedEvent[]): readonly LoggedEvent[] => {
  let bytes = 0;
  let end = 0;
  while (end < logged.length && end < logPage.entries) {
    bytes += JSON.stringify(logged[end].event).length;
    if (end > 0 && bytes > logPage.bytes) {
      break;
    }
    end++;
  }
  return end === logged.length ? logged : logged.slice(0, end);
};

/**
 * Where episodes and their events are kept: PostgreSQL in production (libs/persistence implements this port).
 * `append` must be durable when it resolves: the twin answers only after it. Every method is scoped to a tenant (a
 * descriptor names its own): another tenant's episode is not found, and nothing is written to it.
 */
export abstract class EpisodeStore {
  /** `by`: who started it, for the evidence trail (Mirror's own machinery when absent). */
  abstract createEpisode(episode: EpisodeDescriptor, by?: EpisodeStarter): Promise<void>;
  /**
   * Creates `episode` (a fork: `forkedFrom` set) with its source's events up to `forkedFrom.seq` as its own log, in
   * one step: a fork of a long episode never passes through the caller, nor half-exists. The source must be an episode
   * of the fork's tenant.
   */
  abstract forkEpisode(episode: ForkDescriptor, by?: EpisodeStarter): Promise<void>;
  abstract findEpisode(tenantId: string, episodeId: string): Promise<EpisodeDescriptor | undefined>;
  /**
   * Refuses (rejects) an episode the tenant does not own, and, with `EventSequenceConflictError`, events whose numbers
   * are taken already: another copy of the episode (another process's) wrote first, and nothing of these is stored.
   */
  abstract append(tenantId: string, episodeId: string, events: LoggedEvent[]): Promise<void>;
  /** The log in order, only the events after `after` and up to `until` when given: catching up reads what is new. */
  abstract events(tenantId: string, episodeId: string, range?: EventRange): Promise<LoggedEvent[]>;
  /** `by`: who set them, for the evidence trail (Mirror's own machinery when absent). */
  abstract setFaults(
    tenantId: string,
    episodeId: string,
    faults: FaultSettings | undefined,
    by?: EpisodeStarter,
  ): Promise<void>;
  /**
   * A token issued for the episode on the operator's request (a persona's, a tester's), for the evidence trail: who
   * asked, for which service, principal and scopes; never the token itself.
   */
  abstract recordCredentialIssued(
    tenantId: string,
    episodeId: string,
    credential: CredentialIssuance,
    by?: EpisodeStarter,
  ): Promise<void>;
}

/** What a credential issued for an episode was for (the token itself is never recorded). */
export interface IssuedCredential {
  service: string;
  principal: string;
  /** Fewer scopes than the service declares; absent: all of them. */
  scopes?: string[];
}

/** A credential as the trail records its issuance: what it is for, and a fingerprint that names it, never it. */
export interface CredentialIssuance extends IssuedCredential {
  /** The first 16 hex digits of the token's SHA-256: tells a token met later for this one, and cannot be used as it. */
  fingerprint: string;
}

/** The fingerprint of a token, as its issuance records it. */
export const tokenFingerprint = (token: string): string =>
  createHash('sha256').update(token).digest('hex').slice(0, 16);

/**
 * Who started an episode (or forked, or reset one), as the evidence trail names them: an API key's principal, the
 * person at the command line, a rollout. Kept apart from the descriptor: a fork is started by whoever forks, not by
 * whoever started its source.
 */
export interface EpisodeStarter {
  actor: string;
  actorKind: ActorKind;
  /** The rollout the episode is a trial of: its entry then travels with the rollout's evidence. */
  rolloutId?: string;
}

/**
 * Events numbered where the log has events already: the writer's copy of the episode is behind its log (another
 * process wrote since it was loaded). Nothing was stored; the writer catches up from the log and decides again.
 */
export class EventSequenceConflictError extends Error {
  constructor(
    readonly episodeId: string,
    readonly seq: number,
  ) {
    super(`episode ${episodeId.slice(0, 64)} has an event ${seq} already: this copy of it is behind its log`);
  }
}

/** A write to an episode the tenant does not own (or that does not exist): refused whole, nothing stored. */
export class EpisodeNotInTenantError extends Error {
  constructor(tenantId: string, episodeId: string) {
    super(`tenant ${tenantId} has no episode ${episodeId.slice(0, 64)}`);
  }
}

/** A slice of an event log by sequence number: after `after` (exclusive), up to `until` (inclusive). */
export interface EventRange {
  after?: number;
  until?: number;
}

/** Whether an event is in a range: what a store that filters in memory applies. */
export const inRange = (seq: number, range: EventRange = {}): boolean =>
  (range.after === undefined || seq > range.after) && (range.until === undefined || seq <= range.until);

export type ForkDescriptor = EpisodeDescriptor & Required<Pick<EpisodeDescriptor, 'forkedFrom'>>;

export interface EpisodeDescriptor {
  id: string;
  tenantId: string;
  stackVersion: string;
  seed: number;
  /**
   * The key the episode's credentials are derived from: random per episode (a fork gets its own), stored with it so a
   * rebuilt episode honours the tokens it issued. Never sent to anyone; tokens are issued from it.
   */
  secret: string;
  sizes: { recordsPerResource: number; childrenPerParent: number; overrides?: Record<string, number> };
  /** Set when the episode was forked from another one at a given event. */
  forkedFrom?: { episodeId: string; seq: number };
  faults?: FaultSettings;
  /** The task the episode plays, when it plays one: what grading it later needs. A fork plays its source's. */
  scenario?: EpisodeScenario;
}

/** A scenario of the episode's stack version and the seed of its task instance (the world's seed may differ). */
export interface EpisodeScenario {
  id: string;
  seed: number;
}

export interface FaultRule {
  /** Added latency, a random value between the two bounds, in milliseconds. */
  latencyMs?: [number, number];
  /** Share of requests answered with a 5xx in the spec's error shape. */
  errorRate?: number;
  /** At most this many requests per window; beyond, 429 with Retry-After. */
  rateLimit?: { requests: number; windowSeconds: number };
  /** Share of requests never answered within `timeoutMs` (the client times out). */
  timeoutRate?: number;
  timeoutMs?: number;
}

/** Fault injection, off unless set: per service, and per operation id (which wins). */
export interface FaultSettings {
  services?: Record<string, FaultRule>;
  operations?: Record<string, FaultRule>;
}

/**
 * A call to an episode's twins that left no event in its log: a read, or a write that changed nothing and is not an
 * attempt on record (a malformed call, a fault injected, an idempotent replay). The log holds what changed (and the
 * business clock moves one second per event), so these are kept apart, for reviewers to see every call made.
 */
export interface ObservedCall {
  tenantId: string;
  episodeId: string;
  /** The log's last sequence number when the call was answered: the call came after that event. */
  afterSeq: number;
  /** The episode's business time then. */
  at: string;
  service: string;
  method: string;
  /** The path under the service, with its query string, at most 500 characters. */
  path: string;
  /** The operation it reached, when the path named one. */
  operationId?: string;
  status: number;
  /** Who called, from the call's credentials, when the twin knows them. */
  actor?: string;
}

/** Where calls that left no event go: synchronous and never throwing (the answer must not wait on it). */
export interface CallObserver {
  observe(call: ObservedCall): void;
  /**
   * Writes out what it holds, never rejecting: called before an episode's end is stored, so the calls answered until
   * then are there for the store to commit to with the end.
   */
  flush?(): Promise<void>;
}
