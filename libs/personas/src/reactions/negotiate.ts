import {
  evaluateExpression,
  ExpressionContext,
  fillTemplate,
  Honouring,
  Negotiation,
  ObservedEvent,
  TwinOperation,
} from '@libs/party-reactions';
import { TwinCallError } from '@libs/twin-client';

import { negotiationMoves, NegotiationMove, openingTerms, orderOnTerms, Terms } from '../negotiation/negotiation-moves';
import { honouredText, moveText, openingText, refusedText } from '../negotiation/negotiation-text';
import { readOffer } from '../negotiation/offer-reading';

/** What the negotiator's acts need from the performer: its channel's messages, speaking, and twin operations. */
export interface NegotiatorHands {
  /** The counterpart's messages to the party on the channel, oldest first, each with its id on the channel. */
  messagesFromAgent: (channel: string) => Promise<{ id: string; text: string }[]>;
  /** The id on the channel of the message an event tells of (a mail's internet id, a Slack message's ts). */
  messageIdOf: (event: ObservedEvent) => string | undefined;
  /** Answers on the channel: in the thread of `inReplyTo` when given, else a new message to the agent. */
  speak: (channel: string, text: string, subject: string, inReplyTo?: string) => Promise<void>;
  operate: (operation: TwinOperation, context: ExpressionContext) => Promise<unknown>;
  /** Who signs what the party says. */
  signature: string;
}

/** The conversation so far as the party's moves: one per message of the counterpart's, up to `upTo` when given. */
const movesSoFar = async (
  hands: NegotiatorHands,
  negotiation: Negotiation,
  upTo?: string,
): Promise<{ messages: { id: string; text: string }[]; moves: (NegotiationMove | undefined)[] }> => {
  const all = await hands.messagesFromAgent(negotiation.channel);
  const end = upTo === undefined ? -1 : all.findIndex((message) => message.id === upTo);
  const messages = end === -1 ? all : all.slice(0, end + 1);
  return {
    messages,
    moves: negotiationMoves(
      negotiation,
      messages.map((m) => readOffer(negotiation, m.text)),
    ),
  };
};

const record = async (
  hands: NegotiatorHands,
  negotiation: Negotiation,
  context: ExpressionContext,
  terms: Terms,
  basis: 'offer' | 'acceptance',
): Promise<void> => {
  if (negotiation.record) {
    await hands.operate(negotiation.record, { ...context, terms: { ...terms, basis } });
  }
};

/**
 * The negotiator's move: asked on its channel, it answers the message with its move (recomputed from the whole
 * conversation, so a retry or a restart answers the same); told of the event it opens on, it states its opening
 * terms. Every position it takes it also records in writing where the scenario says: that record, not anything the
 * agent writes, is what it agreed.
 */
export const negotiate = async (
  hands: NegotiatorHands,
  negotiation: Negotiation,
  context: ExpressionContext,
  event: ObservedEvent | undefined,
  asked: boolean,
): Promise<void> => {
  if (!asked) {
    const terms = openingTerms(negotiation);
    const subject = negotiation.openingSubject ? fillTemplate(negotiation.openingSubject, context) : 'Our offer';
    await hands.speak(negotiation.channel, openingText(negotiation, terms, hands.signature), subject);
    await record(hands, negotiation, context, terms, 'offer');
    return;
  }
  const id = event ? hands.messageIdOf(event) : undefined;
  const { messages, moves } = await movesSoFar(hands, negotiation, id);
  const move = moves[moves.length - 1];
  const message = messages[messages.length - 1];
  if (!move || !message) {
    // Closed already (agreed or walked away), or the message is not there: nothing more to say.
    return;
  }
  await hands.speak(negotiation.channel, moveText(negotiation, move, hands.signature), 'Our answer', message.id);
  if (move.kind !== 'walk-away') {
    await record(hands, negotiation, context, move.terms, move.kind === 'accept' ? 'acceptance' : 'offer');
  }
};

const numeric = (value: unknown, what: string): number => {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) {
    throw new TwinCallError(`${what} is not a number (${JSON.stringify(value)})`);
  }
  return number;
};

/**
 * The negotiator's answer to an order that reached it: it reads the order as itself, and accepts it only on terms it
 * stated (its opening, a counter-offer it stood by, or terms it accepted) while its offers stand; after it walked away
 * nothing stands. It says so on its channel too.
 */
export const honour = async (
  hands: NegotiatorHands,
  honouring: Honouring & { negotiation: Negotiation },
  context: ExpressionContext,
): Promise<void> => {
  const { negotiation } = honouring;
  const order = await hands.operate(honouring.read, context);
  const withOrder = { ...context, order };
  const stated: Partial<Terms> = Object.fromEntries(
    Object.entries(honouring.terms).map(([issue, expression]) => [
      issue,
      numeric(evaluateExpression(expression, withOrder), `the order's ${issue}`),
    ]),
  );
  const { moves } = await movesSoFar(hands, negotiation);
  const walkedAway = moves.some((move) => move?.kind === 'walk-away');
  const positions = walkedAway
    ? []
    : [openingTerms(negotiation), ...moves.flatMap((move) => (move && move.kind !== 'walk-away' ? [move.terms] : []))];
  const verdict = orderOnTerms(negotiation, positions, stated);
  const reference = order !== null && typeof order === 'object' && 'id' in order ? String(order.id) : '';
  if (verdict.agreed) {
    await hands.operate(honouring.accept, { ...withOrder, agreed: verdict.position });
    await hands.speak(negotiation.channel, honouredText(reference, hands.signature), `Order ${reference}`);
  } else {
    await hands.operate(honouring.refuse, { ...withOrder, reasons: verdict.reasons.join('; ') });
    await hands.speak(
      negotiation.channel,
      refusedText(reference, verdict.reasons, hands.signature),
      `Order ${reference}`,
    );
  }
};
