import { DeclaredParty, Delay, PartyReaction } from './declared-party';
import { conditionHolds, evaluateExpression, ExpressionContext, PartyExpressionError } from './party-expressions';

/** A domain event as a reaction sees it: `actor` is `agent` for the agent's own, else the principal that caused it. */
export interface ObservedEvent {
  seq: number;
  at: string;
  name: string;
  service: string;
  data: Record<string, unknown>;
  actor: string;
}

export interface AgentAddress {
  employeeId: string;
  email: string;
  slackUser: string;
}

/** What a reaction asks the episode to do: the party's reaction, after a business-time delay from the event. */
export interface PlannedReaction {
  kind: 'reaction';
  party: string;
  reaction: string;
  delay: Delay;
  /** Unique per reaction and trigger: the agenda keeps one of each, and it keys the action's writes. */
  ref: string;
}

/** A party of any kind: only declared ones react here; the built-in personas keep their own scheduling. */
type AnyParty = { persona: string } | DeclaredParty;

const declared = (parties: Record<string, AnyParty>): [string, DeclaredParty][] =>
  Object.entries(parties).filter((entry): entry is [string, DeclaredParty] => entry[1].persona === 'declared');

/** What every expression of a party reads: the instance's values, the event, the party and the agent. */
export const reactionContext = (
  values: Record<string, unknown>,
  party: DeclaredParty,
  agent: AgentAddress,
  event?: ObservedEvent,
): ExpressionContext => ({
  ...values,
  event: event ?? { name: 'start', service: '', data: {}, actor: '' },
  party: { name: party.name, email: party.email, knows: party.knows },
  agent: { email: agent.email, employee_id: agent.employeeId, slack_user: agent.slackUser },
});

const lower = (value: unknown): string => (typeof value === 'string' ? value.toLowerCase() : '');

/** A question to the party: mail with it among the recipients, or a Slack message that names it. */
const addressedTo = (party: DeclaredParty, event: ObservedEvent): boolean => {
  if (event.name === 'email.sent') {
    const recipients = [event.data.to, event.data.cc].flatMap((list): unknown[] => (Array.isArray(list) ? list : []));
    return recipients.some((address) => lower(address) === party.email.toLowerCase());
  }
  if (event.name === 'slack.message.posted') {
    // By name, as a word: "Ed" is not named in "refunded".
    const text = typeof event.data.text === 'string' ? event.data.text : '';
    return [party.name, party.name.split(' ')[0]].some(
      (name) =>
        name.length > 1 && new RegExp(`(^|\\W)${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\W|$)`, 'i').test(text),
    );
  }
  return false;
};

const reviewNeeded = (reaction: PartyReaction, context: ExpressionContext): boolean => {
  if (!('review' in reaction.act)) {
    return true;
  }
  try {
    const amount = evaluateExpression(reaction.act.review.amount, context);
    return typeof amount === 'number' && amount > reaction.act.review.over;
  } catch (error) {
    if (error instanceof PartyExpressionError) {
      return false;
    }
    throw error;
  }
};

const fires = (
  reaction: PartyReaction,
  party: DeclaredParty,
  event: ObservedEvent,
  context: ExpressionContext,
): boolean => {
  const when = reaction.when;
  if ('question' in when) {
    return when.question === event.service && addressedTo(party, event);
  }
  return (
    'event' in when &&
    when.event === event.name &&
    conditionHolds(when.where, context) &&
    reviewNeeded(reaction, context)
  );
};

/** The party did it itself: it never reacts to its own doing (a reply would answer itself forever). */
const ownDoing = (party: DeclaredParty, event: ObservedEvent): boolean =>
  event.actor === party.employeeId ||
  (party.principal !== undefined && event.actor === party.principal) ||
  event.actor.toLowerCase() === party.email.toLowerCase();

/**
 * The reactions an event triggers among the declared parties, in a stable order (party, then declaration). Pure and
 * deterministic: the workflow calls it on each event and schedules what it returns.
 */
export const matchReactions = (
  event: ObservedEvent,
  parties: Record<string, AnyParty>,
  values: Record<string, unknown>,
  agent: AgentAddress,
): PlannedReaction[] =>
  declared(parties)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([name, party]) => {
      if (ownDoing(party, event)) {
        return [];
      }
      const context = reactionContext(values, party, agent, event);
      return party.reactions
        .filter((reaction) => fires(reaction, party, event, context))
        .map((reaction) => ({
          kind: 'reaction' as const,
          party: name,
          reaction: reaction.id,
          delay: reaction.after,
          ref: `${reaction.id}@${event.seq}`,
        }));
    });

/** What the declared parties do on their own as the episode starts (a requester opening the case). */
export const openingReactions = (parties: Record<string, AnyParty>): PlannedReaction[] =>
  declared(parties)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([name, party]) =>
      party.reactions
        .filter((reaction) => 'start' in reaction.when)
        .map((reaction) => ({
          kind: 'reaction' as const,
          party: name,
          reaction: reaction.id,
          delay: reaction.after,
          ref: `${reaction.id}@start`,
        })),
    );

/** A reaction that fires once, when its predicate over the twins' records first holds. */
export interface StateReaction extends PlannedReaction {
  predicate: string;
}

/**
 * The declared parties' reactions on a state, in a stable order, each with the predicate the episode judges on the
 * twins' records (in the success predicates' context) after what happens; each fires once (its ref is `<id>@state`).
 */
export const stateReactions = (parties: Record<string, AnyParty>): StateReaction[] =>
  declared(parties)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([name, party]) =>
      party.reactions.flatMap((reaction) =>
        'state' in reaction.when
          ? [
              {
                kind: 'reaction' as const,
                party: name,
                reaction: reaction.id,
                delay: reaction.after,
                ref: `${reaction.id}@state`,
                predicate: reaction.when.state,
              },
            ]
          : [],
      ),
    );
