import { hashSeed, WorldRecord } from '@libs/synthetic-data';
import {
  domainEvents,
  emptyResponse,
  EpisodeEvent,
  isOutcome,
  jsonResponse,
  Outcome,
  PackBehaviour,
  PackCall,
} from '@libs/twin-engine';

import { MailDomainEvents } from './mail-events';
import { claimedAddress, exchangeId, folderId, WellKnownFolder, wellKnownFolders } from './mail-ids';
import {
  addressesOf,
  Attachment,
  MailMessage,
  messageJson,
  messageView,
  plainText,
  preview,
  Recipient,
  recipient,
} from './mail-records';
import { compileFilter, compileOrderBy, FilterError } from './odata-filter';

/** Graph's error envelope, with the status Graph uses for the code. */
export const graphError = (status: number, code: string, message: string): Outcome => ({
  response: jsonResponse(status, { error: { code, message, innerError: { date: new Date(0).toISOString() } } }),
  events: [],
});

interface Mailbox {
  id: string;
  address: string;
}

/** Mail's domain events, checked against the published map (`mail-events.ts`). */
const domainEvent = domainEvents<MailDomainEvents>();

const authenticate = (call: PackCall): Mailbox | Outcome => {
  const header = call.request.headers.authorization;
  if (!header?.startsWith('Bearer ') || header.length <= 'Bearer '.length) {
    return graphError(401, 'InvalidAuthenticationToken', 'Access token is empty.');
  }
  const claimed = claimedAddress(header.slice('Bearer '.length).trim());
  const found =
    claimed && call.credentials.verify(claimed.address, claimed.mac)
      ? (call.state.get(call.table('addresses'), claimed.address) as { mailbox: string } | undefined)
      : undefined;
  return found && claimed
    ? { id: found.mailbox, address: claimed.address }
    : graphError(401, 'InvalidAuthenticationToken', 'Access token validation failure. Invalid audience.');
};

/** The token a call presents and the address it names, genuine or not. */
export const presentedToken = (call: PackCall): { claimed?: string } | undefined => {
  const header = call.request.headers.authorization;
  if (!header?.startsWith('Bearer ') || header.length <= 'Bearer '.length) {
    return undefined;
  }
  const claimed = claimedAddress(header.slice('Bearer '.length).trim())?.address;
  return claimed !== undefined ? { claimed } : {};
};

/** Who calls, by the token: the employee who owns the mailbox, or the outside party's address. */
export const mailPrincipal = (call: PackCall): string | undefined => {
  const caller = authenticate(call);
  return isOutcome(caller)
    ? undefined
    : (call.company.employees.find((e) => e.email.toLowerCase() === caller.address)?.id ?? caller.address);
};

const lookupMailbox = (call: PackCall, ref: string): Mailbox | undefined => {
  const byId = call.state.get(call.table('mailboxes'), ref);
  if (byId) {
    return { id: ref, address: String(byId.mail) };
  }
  const byAddress = call.state.get(call.table('addresses'), ref.toLowerCase()) as { mailbox: string } | undefined;
  return byAddress ? { id: byAddress.mailbox, address: ref.toLowerCase() } : undefined;
};

/**
 * The mailbox an operation acts on: the caller's own for `/me`, the named one for `/users/{id}`, which a token may
 * reach only if it is its own (sending as someone else is refused, as delegated Graph tokens are).
 */
const targetMailbox = (call: PackCall, caller: Mailbox): Mailbox | Outcome => {
  const ref = call.params['user-id'];
  if (ref === undefined) {
    return caller;
  }
  const target = lookupMailbox(call, ref);
  if (!target) {
    return graphError(404, 'ErrorInvalidUser', `The requested user '${ref}' is invalid.`);
  }
  if (target.id !== caller.id) {
    return graphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
  }
  return target;
};

/** Authenticates, finds the mailbox, then runs the operation. */
const mailbox =
  (body: (call: PackCall, box: Mailbox) => Outcome): PackBehaviour =>
  (call) => {
    const caller = authenticate(call);
    if (isOutcome(caller)) {
      return caller;
    }
    const box = targetMailbox(call, caller);
    return isOutcome(box) ? box : body(call, box);
  };

const folderOf = (call: PackCall, box: Mailbox, ref: string): WorldRecord | Outcome => {
  const wellKnown = ref.toLowerCase();
  const id = wellKnown in wellKnownFolders ? folderId(call.company.seed, box.id, wellKnown as WellKnownFolder) : ref;
  const folder = call.state.get(call.table('folders'), id);
  if (!folder || call.state.parentOf(call.table('folders'), id) !== box.id) {
    return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
  }
  return folder;
};

const messagesOf = (call: PackCall, box: Mailbox): MailMessage[] =>
  call.state.ids(call.table('messages'), box.id).map((id) => call.state.get(call.table('messages'), id) as MailMessage);

const messageOf = (call: PackCall, box: Mailbox): MailMessage | Outcome => {
  const id = call.params['message-id'];
  const message = call.state.get(call.table('messages'), id) as MailMessage | undefined;
  if (!message || call.state.parentOf(call.table('messages'), id) !== box.id) {
    return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
  }
  return message;
};

const folderView = (call: PackCall, box: Mailbox, folder: WorldRecord): WorldRecord => {
  const { wellKnownName: _wellKnown, ...visible } = folder;
  const inFolder = messagesOf(call, box).filter((m) => m.parentFolderId === folder.id);
  return { ...visible, totalItemCount: inFolder.length, unreadItemCount: inFolder.filter((m) => !m.isRead).length };
};

const query = (call: PackCall, name: string): string | undefined => call.request.query.get(name) ?? undefined;

/** Where the page starts and how long it is, from `$skip` and `$top` (Graph's default page is 10). */
const window = (call: PackCall) => ({
  skip: Number(query(call, '$skip') ?? 0),
  top: Number(query(call, '$top') ?? 10),
});

const pageBody = (call: PackCall, items: MailMessage[], more: boolean): Outcome => {
  const { skip, top } = window(call);
  const select = query(call, '$select')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const body: Record<string, unknown> = {
    '@odata.context': `${call.request.path}/$metadata`,
    value: items.map((m) => messageView(m, select)),
  };
  if (more) {
    const next = new URLSearchParams(call.request.query);
    next.set('$skip', String(skip + top));
    next.set('$top', String(top));
    body['@odata.nextLink'] = `${call.url}?${next.toString()}`;
  }
  const response = jsonResponse(200, body);
  if (!select) {
    // Each message's JSON is made once; the page is spliced from them rather than serialised again.
    const { value: _value, ...rest } = body;
    response.text = `{"value":[${items.map(messageJson).join(',')}],${JSON.stringify(rest).slice(1)}`;
  }
  return { response, events: [] };
};

const defaultOrder = /^\s*receivedDateTime\s+desc\s*$/i;

/** A page of messages the OData way: `$filter`, `$search`, `$orderby`, `$skip`, `$top`, `$select`, `nextLink`. */
const listMessages = (call: PackCall, box: Mailbox, folder?: string): Outcome => {
  const filter = query(call, '$filter');
  const orderBy = query(call, '$orderby');
  const search = query(call, '$search')?.replace(/^"|"$/g, '').toLowerCase();
  let predicate: (message: MailMessage) => boolean = () => true;
  try {
    const compiled = filter ? compileFilter(filter) : undefined;
    const words = search?.split(/\s+/).filter(Boolean) ?? [];
    predicate = (m) =>
      (!folder || m.parentFolderId === folder) &&
      (!compiled || compiled(m)) &&
      words.every((word) =>
        `${m.subject} ${plainText(m.body)} ${m.from.emailAddress.address ?? ''} ${m.from.emailAddress.name ?? ''}`
          .toLowerCase()
          .includes(word),
      );
    const { skip, top } = window(call);
    if (!orderBy || defaultOrder.test(orderBy)) {
      // Mail arrives in clock order, so newest-first creation order is Graph's default order: read only the page.
      const page: MailMessage[] = [];
      let matched = 0;
      for (const id of call.state.newestFirst(call.table('messages'), box.id)) {
        const message = call.state.get(call.table('messages'), id) as MailMessage;
        if (!predicate(message)) {
          continue;
        }
        if (matched >= skip + top) {
          return pageBody(call, page, true);
        }
        if (matched >= skip) {
          page.push(message);
        }
        matched++;
      }
      return pageBody(call, page, false);
    }
    const sorted = messagesOf(call, box)
      .filter((m) => predicate(m))
      .sort(compileOrderBy(orderBy));
    return pageBody(call, sorted.slice(skip, skip + top), skip + top < sorted.length);
  } catch (error) {
    if (error instanceof FilterError) {
      return graphError(400, 'BadRequest', `Invalid filter clause: ${error.message}`);
    }
    throw error;
  }
};

interface Outgoing {
  subject: string;
  body: { contentType: 'text' | 'html'; content: string };
  toRecipients: Recipient[];
  ccRecipients: Recipient[];
  bccRecipients: Recipient[];
  replyTo: Recipient[];
  importance: 'low' | 'normal' | 'high';
  attachments: Attachment[];
  internetMessageHeaders: { name: string; value: string }[];
  categories: string[];
}

const validAddress = (address: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address);

/** What a client may send as a message (sendMail, a draft, a reply's extra fields). */
interface Draft {
  subject?: string;
  body?: { contentType: 'text' | 'html'; content: string };
  toRecipients?: Recipient[];
  ccRecipients?: Recipient[];
  bccRecipients?: Recipient[];
  replyTo?: Recipient[];
  importance?: 'low' | 'normal' | 'high';
  categories?: string[];
  internetMessageHeaders?: { name: string; value: string }[];
  attachments?: Partial<Attachment>[];
  isRead?: boolean;
  /** Send-as: only the mailbox's own address; a delegated token has no right to another's. */
  from?: Recipient;
}

/** A client's message (sendMail, a draft, a reply's extra fields) as the twin keeps it, or the error Graph gives. */
const outgoing = (call: PackCall, draft: Draft, base?: Partial<Outgoing>): Outgoing | Outcome => {
  const claimed = draft.from?.emailAddress?.address?.toLowerCase();
  const caller = authenticate(call);
  if (claimed && !isOutcome(caller) && claimed !== caller.address) {
    return graphError(
      403,
      'ErrorSendAsDenied',
      `The user account which was used to submit this request does not have the right to send mail on behalf of the specified sending account (${claimed}).`,
    );
  }
  const attachments: Attachment[] = [];
  for (const [index, given] of (draft.attachments ?? []).entries()) {
    if (
      !given.name ||
      (given['@odata.type'] ?? '#microsoft.graph.fileAttachment') !== '#microsoft.graph.fileAttachment'
    ) {
      return graphError(400, 'ErrorInvalidAttachment', `attachments/${index}: a file attachment needs a name`);
    }
    const bytes = Buffer.from(given.contentBytes ?? '', 'base64');
    attachments.push({
      '@odata.type': '#microsoft.graph.fileAttachment',
      id: exchangeId('AAMkAGA', call.company.seed, 'attachment', call.seq, index),
      name: given.name,
      contentType: given.contentType ?? 'application/octet-stream',
      size: bytes.length,
      isInline: Boolean(given.isInline),
      lastModifiedDateTime: call.now,
      contentBytes: bytes.toString('base64'),
    });
  }
  const headers = draft.internetMessageHeaders ?? [];
  const badHeader = headers.find((h) => !/^x-/i.test(h.name));
  if (badHeader) {
    return graphError(
      400,
      'InvalidInternetMessageHeader',
      `The internet message header name '${badHeader.name}' should start with 'x-' or 'X-'.`,
    );
  }
  const recipients = [
    ...(draft.toRecipients ?? base?.toRecipients ?? []),
    ...(draft.ccRecipients ?? base?.ccRecipients ?? []),
    ...(draft.bccRecipients ?? base?.bccRecipients ?? []),
  ];
  const invalid = addressesOf(recipients).find((a) => !validAddress(a));
  if (invalid !== undefined || recipients.some((r) => !r.emailAddress?.address)) {
    return graphError(400, 'ErrorInvalidRecipients', `At least one recipient isn't valid: ${invalid ?? '(empty)'}`);
  }
  return {
    subject: draft.subject ?? base?.subject ?? '',
    body: draft.body ?? base?.body ?? { contentType: 'text', content: '' },
    toRecipients: draft.toRecipients ?? base?.toRecipients ?? [],
    ccRecipients: draft.ccRecipients ?? base?.ccRecipients ?? [],
    bccRecipients: draft.bccRecipients ?? base?.bccRecipients ?? [],
    replyTo: draft.replyTo ?? base?.replyTo ?? [],
    importance: draft.importance ?? base?.importance ?? 'normal',
    attachments: [...(base?.attachments ?? []), ...attachments],
    internetMessageHeaders: headers,
    categories: draft.categories ?? [],
  };
};

const ownerName = (call: PackCall, box: Mailbox): string => {
  const name = call.state.get(call.table('mailboxes'), box.id)?.displayName;
  return typeof name === 'string' ? name : box.address;
};

const newMessage = (
  call: PackCall,
  box: Mailbox,
  mail: Outgoing,
  fields: { id: string; folder: WellKnownFolder; conversationId: string; internetMessageId: string; sender: Recipient },
): MailMessage => ({
  '@odata.etag': `W/"${hashSeed(call.seq, fields.id).toString(36)}"`,
  id: fields.id,
  createdDateTime: call.now,
  lastModifiedDateTime: call.now,
  receivedDateTime: call.now,
  sentDateTime: fields.folder === 'drafts' ? null : call.now,
  hasAttachments: mail.attachments.length > 0,
  internetMessageId: fields.internetMessageId,
  subject: mail.subject,
  bodyPreview: preview(mail.body),
  importance: mail.importance,
  parentFolderId: folderId(call.company.seed, box.id, fields.folder),
  conversationId: fields.conversationId,
  isRead: fields.folder !== 'inbox',
  isDraft: fields.folder === 'drafts',
  isReadReceiptRequested: false,
  webLink: `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(fields.id)}`,
  inferenceClassification: 'focused',
  body: mail.body,
  sender: fields.sender,
  from: fields.sender,
  toRecipients: mail.toRecipients,
  ccRecipients: mail.ccRecipients,
  // Only the sender's copy shows Bcc, as in Exchange.
  bccRecipients: fields.folder === 'inbox' ? [] : mail.bccRecipients,
  replyTo: mail.replyTo,
  categories: mail.categories,
  flag: { flagStatus: 'notFlagged' },
  internetMessageHeaders: mail.internetMessageHeaders,
  attachments: mail.attachments,
});

/**
 * What a grader reads of an attachment: its text when its bytes are text, whatever type the sender declared (a CSV
 * sent as `application/octet-stream` is still read), and the bytes of a PDF or an Office file (a zip), whose text
 * the graders extract.
 */
const readableAttachment = (attachment: Attachment): { text?: string; contentBytes?: string } => {
  if (!attachment.contentBytes) {
    return {};
  }
  const bytes = Buffer.from(attachment.contentBytes, 'base64');
  // A PDF, or a zip (an Office file): bytes the graders read the text of.
  if (
    bytes.subarray(0, 5).toString('latin1') === '%PDF-' ||
    (bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50)
  ) {
    return { contentBytes: attachment.contentBytes };
  }
  const text = bytes.toString('utf8');
  const isText =
    /^(text\/|application\/(json|csv|xml))/.test(attachment.contentType ?? '') ||
    // eslint-disable-next-line no-control-regex
    !/[\x00-\x08\x0e-\x1f\ufffd]/.test(text);
  return isText ? { text } : {};
};

/**
 * Sends: a copy in the sender's Sent Items (unless told not to, or `sentCopy` is the moved draft), a copy in the
 * Inbox of every recipient the world has a mailbox for, and one `email.sent` event with everything a grader reads.
 */
const deliver = (
  call: PackCall,
  box: Mailbox,
  mail: Outgoing,
  options: {
    kind: 'new' | 'draft' | 'reply' | 'replyAll' | 'forward';
    saveToSentItems?: boolean;
    conversationId?: string;
    inReplyTo?: string;
    sentCopy?: MailMessage;
  },
): EpisodeEvent[] => {
  const seed = call.company.seed;
  const internetMessageId = `<${hashSeed(seed, 'imid', call.seq).toString(36)}.${call.seq}@${box.address.split('@')[1]}>`;
  const conversationId = options.conversationId ?? exchangeId('AAQkAGI', seed, 'conversation', call.seq);
  const sender = recipient(box.address, ownerName(call, box));
  const events: EpisodeEvent[] = [];
  let sentId: string | undefined;
  if (options.sentCopy) {
    const moved: MailMessage = {
      ...options.sentCopy,
      ...newMessage(call, box, mail, {
        id: options.sentCopy.id,
        folder: 'sentitems',
        conversationId: options.sentCopy.conversationId,
        internetMessageId,
        sender,
      }),
      createdDateTime: options.sentCopy.createdDateTime,
    };
    sentId = moved.id;
    events.push({ type: 'record.updated', table: call.table('messages'), id: moved.id, record: moved });
  } else if (options.saveToSentItems !== false) {
    sentId = exchangeId('AAMkAGI', seed, 'message', call.seq, 'sent');
    const copy = newMessage(call, box, mail, {
      id: sentId,
      folder: 'sentitems',
      conversationId,
      internetMessageId,
      sender,
    });
    events.push({ type: 'record.created', table: call.table('messages'), id: sentId, parentId: box.id, record: copy });
  }
  const all = [
    ...new Set(
      addressesOf([...mail.toRecipients, ...mail.ccRecipients, ...mail.bccRecipients]).map((a) => a.toLowerCase()),
    ),
  ];
  const delivered: string[] = [];
  const external: string[] = [];
  for (const address of all) {
    const target = lookupMailbox(call, address);
    if (!target) {
      external.push(address);
      continue;
    }
    delivered.push(address);
    const id = exchangeId('AAMkAGI', seed, 'message', call.seq, address);
    const copy = newMessage(call, target, mail, {
      id,
      folder: 'inbox',
      conversationId: options.sentCopy?.conversationId ?? conversationId,
      internetMessageId,
      sender,
    });
    events.push({ type: 'record.created', table: call.table('messages'), id, parentId: target.id, record: copy });
  }
  events.push(
    domainEvent(call, 'email.sent', {
      kind: options.kind,
      messageId: sentId ?? null,
      internetMessageId,
      conversationId: options.sentCopy?.conversationId ?? conversationId,
      ...(options.inReplyTo ? { inReplyTo: options.inReplyTo } : {}),
      from: box.address,
      to: addressesOf(mail.toRecipients),
      cc: addressesOf(mail.ccRecipients),
      bcc: addressesOf(mail.bccRecipients),
      subject: mail.subject,
      body: plainText(mail.body),
      attachments: mail.attachments.map((a) => ({
        name: a.name,
        contentType: a.contentType,
        size: a.size,
        ...readableAttachment(a),
      })),
      headers: mail.internetMessageHeaders,
      delivered,
      external,
    }),
  );
  return events;
};

const accepted = (events: EpisodeEvent[]): Outcome => ({ response: emptyResponse(202), events });

const bodyOf = (call: PackCall): Record<string, unknown> => (call.input?.body ?? {}) as Record<string, unknown>;

const prefixed = (prefix: string, subject: string): string =>
  subject.toUpperCase().startsWith(prefix.toUpperCase()) ? subject : `${prefix} ${subject}`;

const quoted = (original: MailMessage, comment: string): { contentType: 'text'; content: string } => ({
  contentType: 'text',
  content: `${comment}\n\n-----Original Message-----\nFrom: ${original.from.emailAddress.name ?? ''} <${original.from.emailAddress.address ?? ''}>\nSent: ${original.sentDateTime ?? original.receivedDateTime}\nTo: ${addressesOf(original.toRecipients).join('; ')}\nSubject: ${original.subject}\n\n${plainText(original.body)}`,
});

const respond = (kind: 'reply' | 'replyAll' | 'forward'): PackBehaviour =>
  mailbox((call, box) => {
    const original = messageOf(call, box);
    if (isOutcome(original)) {
      return original;
    }
    const request = bodyOf(call) as { comment?: string; toRecipients?: Recipient[]; message?: Draft };
    const self = box.address.toLowerCase();
    const replyTargets = original.replyTo.length > 0 ? original.replyTo : [original.from];
    const others = (list: Recipient[]) => list.filter((r) => (r.emailAddress.address ?? '').toLowerCase() !== self);
    const toRecipients =
      kind === 'forward'
        ? (request.toRecipients ?? request.message?.toRecipients ?? [])
        : kind === 'reply'
          ? replyTargets
          : others([...replyTargets, ...original.toRecipients]);
    if (toRecipients.length === 0) {
      return graphError(400, 'ErrorInvalidRecipients', 'At least one recipient is required.');
    }
    const mail = outgoing(call, request.message ?? {}, {
      subject: prefixed(kind === 'forward' ? 'FW:' : 'RE:', original.subject),
      body: quoted(original, request.comment ?? ''),
      toRecipients,
      ccRecipients: kind === 'replyAll' ? others(original.ccRecipients) : [],
      attachments: kind === 'forward' ? original.attachments : [],
    });
    if (isOutcome(mail)) {
      return mail;
    }
    return accepted(
      deliver(call, box, mail, {
        kind,
        conversationId: original.conversationId,
        inReplyTo: original.internetMessageId,
      }),
    );
  });

/** Fields a client may change on a message that is not a draft; anything else is refused, as Exchange does. */
const mutableAfterSending = new Set(['isRead', 'categories', 'importance', 'flag', 'inferenceClassification']);

const user = mailbox((call, box) => {
  const record = call.state.get(call.table('mailboxes'), box.id) as WorldRecord;
  return { response: jsonResponse(200, record), events: [] };
});

const me = user;

const userProfile: PackBehaviour = (call) => {
  const caller = authenticate(call);
  if (isOutcome(caller)) {
    return caller;
  }
  const target = lookupMailbox(call, call.params['user-id']);
  return target
    ? { response: jsonResponse(200, call.state.get(call.table('mailboxes'), target.id)), events: [] }
    : graphError(404, 'Request_ResourceNotFound', `Resource '${call.params['user-id']}' does not exist.`);
};

const listAll = mailbox((call, box) => listMessages(call, box));

const listFolder = mailbox((call, box) => {
  const folder = folderOf(call, box, call.params['mailFolder-id']);
  return isOutcome(folder) ? folder : listMessages(call, box, String(folder.id));
});

const getMessage = mailbox((call, box) => {
  const message = messageOf(call, box);
  if (isOutcome(message)) {
    return message;
  }
  const select = query(call, '$select')
    ?.split(',')
    .map((s) => s.trim());
  return { response: jsonResponse(200, messageView(message, select)), events: [] };
});

const createDraft = mailbox((call, box) => {
  const mail = outgoing(call, bodyOf(call));
  if (isOutcome(mail)) {
    return mail;
  }
  const id = exchangeId('AAMkAGI', call.company.seed, 'message', call.seq, 'draft');
  const draft = newMessage(call, box, mail, {
    id,
    folder: 'drafts',
    conversationId: exchangeId('AAQkAGI', call.company.seed, 'conversation', call.seq),
    internetMessageId: `<${hashSeed(call.company.seed, 'imid', call.seq).toString(36)}.${call.seq}@${box.address.split('@')[1]}>`,
    sender: recipient(box.address, ownerName(call, box)),
  });
  return {
    response: jsonResponse(201, messageView(draft)),
    events: [
      { type: 'record.created', table: call.table('messages'), id, parentId: box.id, record: draft },
      domainEvent(call, 'email.draft.created', { messageId: id, from: box.address, subject: draft.subject }),
    ],
  };
});

const updateMessage = mailbox((call, box) => {
  const message = messageOf(call, box);
  if (isOutcome(message)) {
    return message;
  }
  const changes = bodyOf(call) as Draft;
  const refused = Object.keys(changes).filter((key) => !message.isDraft && !mutableAfterSending.has(key));
  if (refused.length > 0) {
    return graphError(
      400,
      'ErrorInvalidPropertyUpdateSentMessage',
      `Update operation is not supported for ${refused.join(', ')} of a message that is not a draft.`,
    );
  }
  let next: MailMessage = { ...message, lastModifiedDateTime: call.now };
  if (message.isDraft) {
    const mail = outgoing(call, changes, message);
    if (isOutcome(mail)) {
      return mail;
    }
    next = { ...next, ...mail, bodyPreview: preview(mail.body), hasAttachments: mail.attachments.length > 0 };
  }
  for (const key of mutableAfterSending) {
    if (key in changes) {
      (next as Record<string, unknown>)[key] = (changes as Record<string, unknown>)[key];
    }
  }
  return {
    response: jsonResponse(200, messageView(next)),
    events: [
      { type: 'record.updated', table: call.table('messages'), id: message.id, record: next },
      domainEvent(call, 'email.updated', {
        messageId: message.id,
        mailbox: box.address,
        changed: Object.keys(changes),
        ...(changes.isRead !== undefined ? { isRead: changes.isRead } : {}),
      }),
    ],
  };
});

/** A folder's well-known name (`sentitems`), or `other` for the mailbox's own folders. */
const folderName = (call: PackCall, box: Mailbox, id: string): WellKnownFolder | 'other' =>
  (Object.keys(wellKnownFolders) as WellKnownFolder[]).find(
    (name) => folderId(call.company.seed, box.id, name) === id,
  ) ?? 'other';

const deleteMessage = mailbox((call, box) => {
  const message = messageOf(call, box);
  if (isOutcome(message)) {
    return message;
  }
  const trash = folderId(call.company.seed, box.id, 'deleteditems');
  const permanent = message.parentFolderId === trash;
  const event: EpisodeEvent = permanent
    ? { type: 'record.deleted', table: call.table('messages'), id: message.id }
    : {
        type: 'record.updated',
        table: call.table('messages'),
        id: message.id,
        record: { ...message, parentFolderId: trash },
      };
  return {
    response: emptyResponse(204),
    events: [
      event,
      domainEvent(call, 'email.deleted', {
        messageId: message.id,
        mailbox: box.address,
        folder: folderName(call, box, message.parentFolderId),
        subject: message.subject,
        body: plainText(message.body),
        permanent,
      }),
    ],
  };
});

const sendDraft = mailbox((call, box) => {
  const draft = messageOf(call, box);
  if (isOutcome(draft)) {
    return draft;
  }
  if (!draft.isDraft) {
    return graphError(400, 'ErrorInvalidRequest', 'Only drafts can be sent.');
  }
  if (addressesOf([...draft.toRecipients, ...draft.ccRecipients, ...draft.bccRecipients]).length === 0) {
    return graphError(400, 'ErrorInvalidRecipients', 'At least one recipient is required.');
  }
  return accepted(deliver(call, box, draft, { kind: 'draft', sentCopy: draft }));
});

const sendMail = mailbox((call, box) => {
  const request = bodyOf(call) as { message: Draft; saveToSentItems?: boolean };
  const mail = outgoing(call, request.message);
  if (isOutcome(mail)) {
    return mail;
  }
  if (addressesOf([...mail.toRecipients, ...mail.ccRecipients, ...mail.bccRecipients]).length === 0) {
    return graphError(400, 'ErrorInvalidRecipients', 'At least one recipient is required.');
  }
  return accepted(deliver(call, box, mail, { kind: 'new', saveToSentItems: request.saveToSentItems !== false }));
});

const listAttachments = mailbox((call, box) => {
  const message = messageOf(call, box);
  return isOutcome(message)
    ? message
    : { response: jsonResponse(200, { '@odata.context': call.request.path, value: message.attachments }), events: [] };
});

const listFolders = mailbox((call, box) => {
  const folders = call.state
    .ids(call.table('folders'), box.id)
    .map((id) => folderView(call, box, call.state.get(call.table('folders'), id) as WorldRecord));
  return { response: jsonResponse(200, { '@odata.context': call.request.path, value: folders }), events: [] };
});

const getFolder = mailbox((call, box) => {
  const folder = folderOf(call, box, call.params['mailFolder-id']);
  return isOutcome(folder) ? folder : { response: jsonResponse(200, folderView(call, box, folder)), events: [] };
});

/** Each behaviour serves `/me/…` and `/users/{user-id}/…` alike; `targetMailbox` tells them apart. */
const both = (name: string, behaviour: PackBehaviour): [string, PackBehaviour][] => [
  [`me_${name}`, behaviour],
  [`users_${name}`, behaviour],
];

export const mailBehaviours: Record<string, PackBehaviour> = Object.fromEntries([
  ['me_get', me],
  ['users_get', userProfile],
  ...both('listMessages', listAll),
  ...both('createMessage', createDraft),
  ...both('getMessage', getMessage),
  ...both('updateMessage', updateMessage),
  ...both('deleteMessage', deleteMessage),
  ...both('sendDraft', sendDraft),
  ...both('reply', respond('reply')),
  ...both('replyAll', respond('replyAll')),
  ...both('forward', respond('forward')),
  ...both('listAttachments', listAttachments),
  ...both('sendMail', sendMail),
  ...both('listMailFolders', listFolders),
  ...both('getMailFolder', getFolder),
  ...both('listFolderMessages', listFolder),
]);
