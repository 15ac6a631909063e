import type { Company, WorldRecord } from '@libs/synthetic-data';

import type { Outcome } from '../crud-behaviour';
import type { ServiceCredentials } from '../episode-credentials';
import type { EpisodeEvent } from '../episode-events';
import type { EpisodeState } from '../episode-state';
import type { ValidRequest } from '../request-validation';
import type { TwinRequest, TwinResponse } from '../twin-http';

/** A record a pack seeds into the world, with its parent when the table is nested (messages in a channel). */
export interface PackRow {
  id: string;
  parentId?: string;
  record: WorldRecord;
}

/** What a pack behaviour gets for one call: the request as sent, the episode's state, and where it stands in time. */
export interface PackCall {
  /** The service's name in the stack (a stack may call its Slack `chat`). */
  service: string;
  operationId: string;
  request: TwinRequest;
  /** The request's URL as the client sees it, without the query: the base of links such as `@odata.nextLink`. */
  url: string;
  /** Path parameters by the spec's names (`message-id`). */
  params: Record<string, string>;
  /** The request's parameters and body, checked against the spec, when the pack asks for that (`validate`). */
  input?: ValidRequest;
  state: EpisodeState;
  /** The simulated clock for this call (ISO 8601) and the sequence number its first event will take. */
  now: string;
  seq: number;
  /** The state key of one of the pack's tables in this service: `table('messages')` → `chat/messages`. */
  table(name: string): string;
  company: Company;
  /** What the pack signs and checks this episode's tokens with, for this service. */
  credentials: ServiceCredentials;
}

export type PackBehaviour = (call: PackCall) => Outcome;

/**
 * A built-in twin of a product (Slack, mail, an ERP): its spec ships in `twins/<name>/spec`, and this is the rest:
 * the world it starts from, drawn from the stack's one company, and what its operations do. Operations without a
 * behaviour fall back to the engine's generic answers.
 */
export interface TwinPack {
  name: string;
  /** The pack's tables, by name, built from the company; deterministic for (company, seed). */
  seed(company: Company, seed: number): Record<string, PackRow[]>;
  behaviours: Readonly<Record<string, PackBehaviour>>;
  /**
   * The rows that give someone outside the company an account on this service (a scenario's outside party: a
   * customer who mails the company), by table name; deterministic for (person, seed). Absent: the pack enrols no one.
   */
  enrol?(person: { address: string; name: string }, seed: number): Record<string, PackRow[]>;
  /** Runs before every operation, with or without a behaviour (authentication); an outcome answers instead. */
  guard?: (call: PackCall) => Outcome | undefined;
  /**
   * Check parameters and bodies against the pack's spec before a behaviour runs, answering failures with
   * `errorResponse`. Slack does its own checks (its errors are `ok: false` with codes), REST-style packs let the spec.
   */
  validate?: boolean;
  /**
   * Who is calling, from the credentials: an employee id, or an outside party's mail address. Recorded on every event
   * a write causes, so graders and reviewers attribute actions to people, whatever names a request claims.
   */
  principal?(call: PackCall): string | undefined;
  /**
   * A refusal the product answers as a success (Slack's `ok: false`), as the HTTP status it stands for: logged like
   * a 403 or 409 of a REST API, so an attempt beyond one's rights is on record whatever the product's error style.
   */
  refusal?(response: TwinResponse): { status: number; reason: string } | undefined;
  /**
   * Which records this caller may read, when the product scopes data by user (a supplier portal user sees its own
   * supplier's records only): the engine's generic lists leave the others out and its gets answer 404 for them.
   * Called with the state key of the table (`call.table('orders')`). Undefined: the caller sees every record.
   */
  visible?(call: PackCall): ((tableKey: string, record: WorldRecord) => boolean) | undefined;
  /** Every domain event the pack records, by name: what policy rules may name (a misspelt one is refused). */
  domainEventNames?: readonly string[];
  /** RPC-style APIs (Slack) answer a method's URL whatever the HTTP verb. */
  anyMethod?: boolean;
  /**
   * The bearer token of a principal (an employee id, a supplier contact's id or mail address, as the product names
   * people) in the product's own style, signed with the episode's credentials: what the operator hands a persona.
   */
  token?(principal: string, credentials: ServiceCredentials): string;
  /**
   * Who the company's agent (employee `E0000`) is to the product, as `token` takes principals (its id, or its mail
   * address): its token is that principal's, so a served twin can say how to call it and the trail can name its holder.
   */
  agentPrincipal?(company: Company): string;
  /**
   * The credential a call presents, genuine or not, with the principal it claims when it names one; undefined when it
   * presents none. A refused credential is logged as an attempt with this claim.
   */
  presentedCredential?(call: PackCall): { claimed?: string } | undefined;
  /** The product's own error body for requests no behaviour answers (unknown method, faults). */
  errorResponse?(status: number, code: string, message: string): TwinResponse;
}

export type PackRegistry = ReadonlyMap<string, TwinPack>;

/** A pack's domain events: name → payload. Payloads are type aliases (not interfaces) so they index as records. */
export type DomainEventMap = Record<string, Record<string, unknown>>;

/**
 * The names of a pack's domain events at run time, from an object that must list every one of its map's names (the
 * compiler refuses a missing or unknown one): `eventNames<SlackDomainEvents>({ 'slack.message.posted': true, … })`.
 */
export const eventNames = <M extends DomainEventMap>(names: Record<keyof M & string, true>): string[] =>
  Object.keys(names);

/**
 * The typed emitter of a pack's domain events: `const emit = domainEvents<SlackDomainEvents>()` checks every name
 * and payload a behaviour records against the pack's published map, which scenarios and graders read by name.
 */
export const domainEvents =
  <M extends DomainEventMap>() =>
  <K extends keyof M & string>(call: PackCall, name: K, data: M[K]): EpisodeEvent => ({
    type: 'domain',
    name,
    service: call.service,
    data,
  });
