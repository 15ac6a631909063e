/**
 * A party declared as data, resolved for one task instance: who it is, what it knows, where it speaks, and what it
 * does (its reactions, behaviour kinds included). Templates and conditions stay as CEL text: they read the event
 * that triggers them, which only exists in the episode.
 */
export interface Delay {
  businessHours?: number;
  businessDays?: number;
}

/** A twin operation made as the party; `body` is a JSON value whose strings are templates. */
export interface TwinOperation {
  service: string;
  method: string;
  path: string;
  body?: unknown;
}

/** A message in the party's words: mail (to, subject, body) or Slack (channel, text, in the thread or not). */
export type Saying =
  | { mail: { to: string; subject: string; body: string } }
  | { slack: { channel: string; text: string; thread?: boolean } };

export type ReactionAct =
  | { do: TwinOperation }
  | { say: Saying }
  /** The responder's answer: the facts the question names, from what the party knows, where it was asked. */
  | { answer: true }
  /** The approver's review: over `over`, decided by `limit`; said and recorded with `review.decision`, `review.amount`. */
  | { review: { amount: string; over: number; limit: number; say?: Saying; record?: TwinOperation } }
  /** The negotiator's move: an answer to the counterpart's newest message on its channel, or its opening unasked. */
  | { negotiate: Negotiation }
  /** The negotiator's answer to an order: accepted on terms it stated, refused on others. */
  | { honour: Honouring & { negotiation: Negotiation } };

/** One numeric issue of a negotiation, resolved: how it is written, and the party's private values. */
export interface NegotiationIssue {
  says: string[];
  unit?: string;
  opening: number;
  reservation: number;
  decimals: number;
  /** Which way the party wants it, when opening and reservation are equal (else it follows from them). */
  prefers?: 'higher' | 'lower';
}

export type NegotiationTactic = 'boulware' | 'linear' | 'conceder' | 'tit-for-tat';

/** A negotiator's parameters for one instance (libs/personas' negotiation decides its moves from them). */
export interface Negotiation {
  /** The service it negotiates on: the stack's mail or Slack pack. */
  channel: string;
  issues: Record<string, NegotiationIssue>;
  tactic: NegotiationTactic;
  /** Rounds until its asks reach the reservation values. */
  patience: number;
  walkAway: { insulting: number; insults: number; stalledAfter: number };
  /** Where it records each position it takes, with `terms.<issue>` and `terms.basis` in its templates. */
  record?: TwinOperation;
  /** The subject of the message it opens with unasked (a template). */
  openingSubject?: string;
}

/** How a negotiator reads an order that reached it, and what it does on agreed terms and on others. */
export interface Honouring {
  read: TwinOperation;
  terms: Record<string, string>;
  accept: TwinOperation;
  refuse: TwinOperation;
}

/**
 * At the start; on an event that meets a condition; on a question to the party on a service (mail or Slack); or once,
 * when a predicate over the twins' records first holds.
 */
export type ReactionTrigger =
  { start: true } | { event: string; where?: string } | { question: string } | { state: string };

export interface PartyReaction {
  /** Where it is declared (`behaviour/0`, `reactions/2`): its identity in the agenda and in idempotency keys. */
  id: string;
  when: ReactionTrigger;
  after: Delay;
  act: ReactionAct;
}

export interface DeclaredParty {
  persona: 'declared';
  name: string;
  email: string;
  /** An employee of the company, or absent for someone outside it (mail only, by address). */
  employeeId?: string;
  /** Someone outside the company with an identity on the stack's services (a supplier's portal user). */
  principal?: string;
  /** The organisation an outsider speaks for: its id and name as the company's records know it. */
  organisation?: { id: string; name: string };
  goals: string[];
  /** Private facts: name → value, already filled from the instance. */
  knows: Record<string, string>;
  /** The stack's services the party uses. */
  channels: string[];
  reactions: PartyReaction[];
}
