import {
  AgentAddress,
  answerFrom,
  DeclaredParty,
  evaluateExpression,
  ExpressionContext,
  fillBody,
  fillTemplate,
  ObservedEvent,
  PartyExpressionError,
  reactionContext,
  Saying,
  TwinOperation,
} from '@libs/party-reactions';
import { TwinCallError, TwinClient } from '@libs/twin-client';

import { honour, negotiate, NegotiatorHands } from './negotiate';

/** What performing a reaction needs, injected: the twins as the party, its tokens, and an optional voice. */
export interface ReactionPerformer {
  /** A client whose writes carry the action's idempotency keys. */
  twin: TwinClient;
  /** The party's token for a service, or undefined when the service issues none. */
  tokenFor: (service: string, principal: string) => Promise<string | undefined>;
  /** Which of the stack's services are the mail and Slack packs. */
  services: { email?: string; slack?: string };
  /** Rephrases a text in the party's voice (the LLM voice); the facts it must keep are checked here. */
  rephrase?: (text: string) => Promise<string>;
}

export interface ReactionRequest {
  partyName: string;
  party: DeclaredParty;
  reaction: string;
  values: Record<string, unknown>;
  agent: AgentAddress;
  event?: ObservedEvent;
}

/** Who the party is to a service: its address to mail, its employee id elsewhere (outsiders have only mail). */
const principalOf = (performer: ReactionPerformer, party: DeclaredParty, service: string): string => {
  if (service === performer.services.email) {
    return party.email;
  }
  const principal = party.employeeId ?? party.principal;
  if (principal === undefined) {
    throw new TwinCallError(`${party.name} is outside the company and has no identity on ${service}`);
  }
  return principal;
};

/** The stack's mail or Slack pack, which a party that speaks needs. */
const packOf = (performer: ReactionPerformer, kind: 'email' | 'slack'): string => {
  const service = performer.services[kind];
  if (service === undefined) {
    throw new TwinCallError(`the stack has no ${kind} pack to speak on`);
  }
  return service;
};

const tokenOf = async (performer: ReactionPerformer, party: DeclaredParty, service: string): Promise<string> =>
  (await performer.tokenFor(service, principalOf(performer, party, service))) ?? '';

/** A text in the party's voice when it has one, unless the voice lost a fact the text must carry. */
const spoken = async (performer: ReactionPerformer, text: string, facts: string[]): Promise<string> => {
  if (!performer.rephrase) {
    return text;
  }
  const rephrased = await performer.rephrase(text);
  return facts.every((fact) => rephrased.includes(fact)) ? rephrased : text;
};

const sendMail = async (
  performer: ReactionPerformer,
  party: DeclaredParty,
  mail: { to: string[]; subject: string; body: string },
): Promise<void> => {
  await performer.twin.mail(await tokenOf(performer, party, packOf(performer, 'email')), '/me/sendMail', {
    body: {
      message: {
        subject: mail.subject,
        body: { contentType: 'text', content: mail.body },
        toRecipients: mail.to.map((address) => ({ emailAddress: { address } })),
      },
    },
  });
};

const postSlack = async (
  performer: ReactionPerformer,
  party: DeclaredParty,
  message: { channel: string; text: string; thread_ts?: string },
): Promise<void> => {
  const token = await tokenOf(performer, party, packOf(performer, 'slack'));
  if (message.channel.startsWith('#')) {
    // A person posts only where they belong; joining a public channel first is what they would do.
    await performer.twin.slack(token, 'conversations.join', { channel: message.channel }).catch(() => undefined);
  }
  await performer.twin.slack(token, 'chat.postMessage', message);
};

const say = async (
  performer: ReactionPerformer,
  party: DeclaredParty,
  saying: Saying,
  context: ExpressionContext,
  event: ObservedEvent | undefined,
): Promise<void> => {
  if ('mail' in saying) {
    const to = fillTemplate(saying.mail.to, context)
      .split(/[,;\s]+/)
      .filter((address) => address.length > 0);
    const body = fillTemplate(saying.mail.body, context);
    await sendMail(performer, party, {
      to,
      subject: fillTemplate(saying.mail.subject, context),
      body: await spoken(performer, body, []),
    });
    return;
  }
  const text = fillTemplate(saying.slack.text, context);
  const threadOf = event?.data.thread_ts ?? event?.data.ts;
  await postSlack(performer, party, {
    channel: fillTemplate(saying.slack.channel, context),
    text: await spoken(performer, text, []),
    ...(saying.slack.thread && typeof threadOf === 'string' ? { thread_ts: threadOf } : {}),
  });
};

const operate = async (
  performer: ReactionPerformer,
  party: DeclaredParty,
  operation: TwinOperation,
  context: ExpressionContext,
): Promise<unknown> =>
  performer.twin.call(
    operation.service,
    fillTemplate(operation.path, context, encodeURIComponent),
    await tokenOf(performer, party, operation.service),
    {
      method: operation.method,
      ...(operation.body !== undefined ? { body: fillBody(operation.body, context) } : {}),
    },
  );

interface InboxMessage {
  id: string;
  internetMessageId: string;
  subject: string;
  body: { content: string };
}

/** A negotiator's hands on its channel: the stack's mail (by address) or Slack (in its direct messages with the agent). */
const negotiatorHands = (performer: ReactionPerformer, party: DeclaredParty, agent: AgentAddress): NegotiatorHands => {
  const mailIds = new Map<string, string>();
  const isMail = (channel: string) => channel === performer.services.email;
  const direct = async (): Promise<{ token: string; channel: string }> => {
    const token = await tokenOf(performer, party, packOf(performer, 'slack'));
    const opened = await performer.twin.slack<{ ok: boolean; channel: { id: string } }>(token, 'conversations.open', {
      users: agent.slackUser,
    });
    return { token, channel: opened.channel.id };
  };
  return {
    signature: party.organisation ? `${party.name}\n${party.organisation.name}` : party.name,
    async messagesFromAgent(channel) {
      if (isMail(channel)) {
        const token = await tokenOf(performer, party, channel);
        const filter = encodeURIComponent(`from/emailAddress/address eq '${agent.email}'`);
        const inbox = await performer.twin.mail<{ value: InboxMessage[] }>(
          token,
          `/me/mailFolders/inbox/messages?$filter=${filter}&$top=100`,
        );
        return [...inbox.value].reverse().map((message) => {
          mailIds.set(message.internetMessageId, message.id);
          return { id: message.internetMessageId, text: `${message.subject}\n${message.body.content}` };
        });
      }
      const { token, channel: im } = await direct();
      const history = await performer.twin.slack<{
        ok: boolean;
        messages: { ts: string; user: string; text: string }[];
      }>(token, 'conversations.history', { channel: im, limit: 200 });
      return history.messages
        .filter((message) => message.user === agent.slackUser)
        .sort((a, b) => Number(a.ts) - Number(b.ts))
        .map((message) => ({ id: message.ts, text: message.text }));
    },
    messageIdOf: (event) =>
      event.name === 'email.sent'
        ? (event.data.internetMessageId as string | undefined)
        : (event.data.ts as string | undefined),
    async speak(channel, text, subject, inReplyTo) {
      if (isMail(channel)) {
        const graphId = inReplyTo === undefined ? undefined : mailIds.get(inReplyTo);
        if (graphId !== undefined) {
          const token = await tokenOf(performer, party, channel);
          await performer.twin.mail(token, `/me/messages/${encodeURIComponent(graphId)}/reply`, {
            body: { comment: await spoken(performer, text, []) },
          });
          return;
        }
        await sendMail(performer, party, { to: [agent.email], subject, body: await spoken(performer, text, []) });
        return;
      }
      const { token, channel: im } = await direct();
      await performer.twin.slack(token, 'chat.postMessage', { channel: im, text: await spoken(performer, text, []) });
    },
    operate: (operation, context) => operate(performer, party, operation, context),
  };
};

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The question an event asks: a mail's subject and body, or a Slack message's text. */
const questionOf = (event: ObservedEvent): string =>
  event.name === 'email.sent' ? `${textOf(event.data.subject)}\n${textOf(event.data.body)}` : textOf(event.data.text);

/** The responder answers where it was asked: by mail to the sender, or in the Slack thread. */
const answer = async (performer: ReactionPerformer, party: DeclaredParty, event: ObservedEvent): Promise<void> => {
  const { text, facts } = answerFrom(party.knows, questionOf(event));
  const words = await spoken(
    performer,
    text,
    facts.map((fact) => party.knows[fact]),
  );
  if (event.name === 'email.sent') {
    const subject = textOf(event.data.subject);
    await sendMail(performer, party, {
      to: [String(event.data.from)],
      subject: /^re:/i.test(subject) ? subject : `Re: ${subject}`,
      body: words,
    });
    return;
  }
  await postSlack(performer, party, {
    channel: String(event.data.channel),
    text: words,
    thread_ts: String(event.data.thread_ts ?? event.data.ts),
  });
};

/**
 * A declared party's reaction, performed through the twins as that party: a twin operation with its templated body,
 * a message, a responder's answer or an approver's decision. Every write carries the action's idempotency key (the
 * TwinClient's), so a retried activity acts once.
 */
export const performReaction = async (
  performer: ReactionPerformer,
  request: ReactionRequest,
): Promise<{ performed: true } | { performed: false; reason: string }> => {
  try {
    await perform(performer, request);
    return { performed: true };
  } catch (error) {
    // What the event made of the act does not work (a field it lacks, a path a twin refuses, a 4xx): the party
    // tried and could not, as a person would; it must not end the episode. Anything else (a twin down) is retried.
    const refused =
      error instanceof PartyExpressionError ||
      (error instanceof TwinCallError && (error.status === undefined || (error.status >= 400 && error.status < 500)));
    if (!refused) {
      throw error;
    }
    return { performed: false, reason: error.message };
  }
};

const perform = async (performer: ReactionPerformer, request: ReactionRequest): Promise<void> => {
  const { party, event } = request;
  const reaction = party.reactions.find((r) => r.id === request.reaction);
  if (!reaction) {
    throw new TwinCallError(`${request.partyName} has no reaction ${request.reaction}`);
  }
  const context = reactionContext(request.values, party, request.agent, event);
  const act = reaction.act;
  if ('do' in act) {
    await operate(performer, party, act.do, context);
  } else if ('say' in act) {
    await say(performer, party, act.say, context, event);
  } else if ('answer' in act) {
    if (event) {
      await answer(performer, party, event);
    }
  } else if ('negotiate' in act) {
    const asked = reaction.when !== undefined && 'question' in reaction.when;
    await negotiate(negotiatorHands(performer, party, request.agent), act.negotiate, context, event, asked);
  } else if ('honour' in act) {
    await honour(negotiatorHands(performer, party, request.agent), act.honour, context);
  } else {
    const amount = evaluateExpression(act.review.amount, context);
    const reviewed = {
      ...context,
      review: {
        amount,
        limit: act.review.limit,
        decision: typeof amount === 'number' && amount <= act.review.limit ? 'approved' : 'rejected',
      },
    };
    if (act.review.record) {
      await operate(performer, party, act.review.record, reviewed);
    }
    if (act.review.say) {
      await say(performer, party, act.review.say, reviewed, event);
    }
  }
};
