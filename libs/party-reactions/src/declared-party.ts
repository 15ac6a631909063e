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
  | { review: { amount: string; over: number; limit: number; say?: Saying; record?: TwinOperation } };

/** At the start; on an event that meets a condition; or on a question to the party on a service (mail or Slack). */
export type ReactionTrigger = { start: true } | { event: string; where?: string } | { question: string };

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
  goals: string[];
  /** Private facts: name → value, already filled from the instance. */
  knows: Record<string, string>;
  /** The stack's services the party uses. */
  channels: string[];
  reactions: PartyReaction[];
}
