import type { WorldRecord } from '@libs/synthetic-data';

export interface EmailAddress {
  name?: string | null;
  address?: string | null;
}
export interface Recipient {
  emailAddress: EmailAddress;
}
export interface Attachment {
  '@odata.type': string;
  id: string;
  name: string;
  contentType: string | null;
  size: number;
  isInline: boolean;
  lastModifiedDateTime: string | null;
  contentBytes?: string;
}

/** A message as Graph returns it; `parentFolderId` says where it is in its mailbox. */
export interface MailMessage extends WorldRecord {
  id: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  receivedDateTime: string;
  sentDateTime: string | null;
  hasAttachments: boolean;
  internetMessageId: string;
  subject: string;
  bodyPreview: string;
  importance: 'low' | 'normal' | 'high';
  parentFolderId: string;
  conversationId: string;
  isRead: boolean;
  isDraft: boolean;
  isReadReceiptRequested: boolean;
  webLink: string;
  inferenceClassification: 'focused' | 'other';
  body: { contentType: 'text' | 'html'; content: string };
  sender: Recipient;
  from: Recipient;
  toRecipients: Recipient[];
  ccRecipients: Recipient[];
  bccRecipients: Recipient[];
  replyTo: Recipient[];
  categories: string[];
  flag: { flagStatus: 'notFlagged' | 'complete' | 'flagged' };
  internetMessageHeaders: { name: string; value: string }[];
  attachments: Attachment[];
}

export const plainText = (body: { contentType: string; content: string }): string =>
  body.contentType === 'html'
    ? body.content
        .replace(/<br\s*\/?>/gi, '\n')
        .replace(/<[^>]+>/g, '')
        .replace(/&nbsp;/g, ' ')
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
    : body.content;

export const preview = (body: { contentType: string; content: string }): string =>
  plainText(body).replace(/\s+/g, ' ').trim().slice(0, 255);

export const recipient = (address: string, name?: string): Recipient => ({
  emailAddress: { name: name ?? address, address },
});

export const addressesOf = (recipients: Recipient[] | undefined): string[] =>
  (recipients ?? []).map((r) => r.emailAddress.address ?? '').filter(Boolean);

const viewJson = new WeakMap<MailMessage, string>();

/** `messageView(message)` as JSON, made once per message: records never change, and lists re-send the same mail. */
export const messageJson = (message: MailMessage): string => {
  let json = viewJson.get(message);
  if (json === undefined) {
    json = JSON.stringify(messageView(message));
    viewJson.set(message, json);
  }
  return json;
};

/** The message without what the twin keeps for itself: attachments are listed separately, as Graph does. */
export const messageView = (message: MailMessage, select?: string[]): WorldRecord => {
  const { attachments: _attachments, ...visible } = message;
  if (!select) {
    return visible;
  }
  return Object.fromEntries(
    Object.entries(visible).filter(([key]) => key === 'id' || key === '@odata.etag' || select.includes(key)),
  );
};
