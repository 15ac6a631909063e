import type { LoggedEvent } from '@libs/twin-engine';

import type { NameDirectory } from './record-names';
import type { ChatMessage, ChatThread, MailConversation, MailMessage } from './review-view-models';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const texts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v) => typeof v === 'string') : []);

export const messageAnchor = (seq: number) => `m-${seq}`;

/** A domain event's data when it is one (products' own events: `…message.posted`, `…sent`). */
const domain = (logged: LoggedEvent): { name: string; data: Record<string, unknown> } | undefined =>
  logged.event.type === 'domain' ? { name: logged.event.name, data: logged.event.data } : undefined;

/*
 * Messages are recognised by their shape, not by a pack's name: a posted chat message has a channel, a ts and text;
 * a sent mail has a sender, recipients, a subject and a body. Edits and deletions of a chat message name its channel
 * and ts and carry the text they replaced or removed.
 */
const isChatPost = (name: string, data: Record<string, unknown>) =>
  /\.posted$/.test(name) && typeof data.channel === 'string' && typeof data.ts === 'string' && 'text' in data;
const isChatEdit = (name: string, data: Record<string, unknown>) =>
  /\.message\.updated$/.test(name) && typeof data.channel === 'string' && typeof data.ts === 'string';
const isChatDeletion = (name: string, data: Record<string, unknown>) =>
  /\.message\.deleted$/.test(name) && typeof data.channel === 'string' && typeof data.ts === 'string';
const isMail = (name: string, data: Record<string, unknown>) =>
  /\.sent$/.test(name) &&
  typeof data.from === 'string' &&
  Array.isArray(data.to) &&
  'subject' in data &&
  'body' in data;

/**
 * Chat as the people in its channels saw it: threads in order of their first message, each message once, channels and
 * people by their names where the episode's records name them (their ids kept beside).
 */
export const chatThreads = (log: readonly LoggedEvent[], names: NameDirectory = new Map()): ChatThread[] => {
  const threads = new Map<string, ChatThread>();
  const byTs = new Map<string, ChatMessage>();
  for (const logged of log) {
    const event = domain(logged);
    if (!event) {
      continue;
    }
    const { name, data } = event;
    const key = `${text(data.channel)}\u0000${text(data.ts)}`;
    if (isChatPost(name, data)) {
      const message: ChatMessage = {
        anchor: messageAnchor(logged.seq),
        seq: logged.seq,
        at: logged.at,
        actor: logged.actor ?? null,
        user:
          text(data.username) ||
          names.get(text(data.user)) ||
          names.get(text(data.employee)) ||
          text(data.employee) ||
          text(data.user),
        userId: text(data.user) || text(data.employee),
        text: text(data.text),
        ts: text(data.ts),
        edits: [],
        deleted: false,
        files: texts(data.files),
      };
      byTs.set(key, message);
      const threadTs = text(data.thread_ts) || message.ts;
      const threadKey = `${text(data.channel)}\u0000${threadTs}`;
      const thread = threads.get(threadKey) ?? {
        channel: text(data.channel),
        channelName: names.get(text(data.channel)) ?? null,
        threadTs,
        messages: [],
      };
      thread.messages.push(message);
      threads.set(threadKey, thread);
    } else if (isChatEdit(name, data)) {
      const message = byTs.get(key);
      if (message) {
        message.edits.push(text(data.previous_text));
        message.text = text(data.text);
      }
    } else if (isChatDeletion(name, data)) {
      const message = byTs.get(key);
      if (message) {
        message.deleted = true;
      }
    }
  }
  return [...threads.values()];
};

/** Mail as its readers saw it: conversations in order of their first message. */
export const mailConversations = (log: readonly LoggedEvent[]): MailConversation[] => {
  const conversations = new Map<string, MailConversation>();
  for (const logged of log) {
    const event = domain(logged);
    if (!event || !isMail(event.name, event.data)) {
      continue;
    }
    const data = event.data;
    const message: MailMessage = {
      anchor: messageAnchor(logged.seq),
      seq: logged.seq,
      at: logged.at,
      actor: logged.actor ?? null,
      from: text(data.from),
      to: texts(data.to),
      cc: texts(data.cc),
      bcc: texts(data.bcc),
      subject: text(data.subject),
      body: text(data.body),
      attachments: Array.isArray(data.attachments)
        ? data.attachments.map((a) => text((a as { name?: unknown }).name)).filter((n) => n.length > 0)
        : [],
      external: texts(data.external),
    };
    const id = text(data.conversationId) || text(data.internetMessageId) || message.anchor;
    const conversation = conversations.get(id) ?? { conversationId: id, subject: message.subject, messages: [] };
    conversation.messages.push(message);
    conversations.set(id, conversation);
  }
  return [...conversations.values()];
};
