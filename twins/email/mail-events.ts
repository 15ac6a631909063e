import { eventNames } from '@libs/twin-engine';

/** The email pack's domain events, by name: what scenarios and graders read from an episode's log. */
export type MailDomainEvents = {
  /** Everything a grader reads about a sent message, Bcc and attachments' text included. */
  'email.sent': {
    kind: 'new' | 'draft' | 'reply' | 'replyAll' | 'forward';
    messageId: string | null;
    internetMessageId: string;
    conversationId: string;
    inReplyTo?: string;
    from: string;
    to: string[];
    cc: string[];
    bcc: string[];
    subject: string;
    body: string;
    /** `text` when the bytes are text; a PDF's or an Office file's `contentBytes` (base64), for the graders to read. */
    attachments: { name: string; contentType: string | null; size: number; text?: string; contentBytes?: string }[];
    headers: { name: string; value: string }[];
    /** Recipients the world has a mailbox for, and the addresses it does not know (mail that left the simulation). */
    delivered: string[];
    external: string[];
  };
  'email.draft.created': { messageId: string; from: string; subject: string };
  'email.updated': { messageId: string; mailbox: string; changed: string[]; isRead?: boolean };
  /** With the text removed; `permanent` when it left Deleted Items. */
  'email.deleted': {
    messageId: string;
    mailbox: string;
    /** Where it was deleted from: deleting from Sent Items is how a sender would hide what it wrote. */
    folder: string;
    subject: string;
    body: string;
    permanent: boolean;
  };
};

export const mailEventNames = eventNames<MailDomainEvents>({
  'email.sent': true,
  'email.draft.created': true,
  'email.updated': true,
  'email.deleted': true,
});
