import type { WorldRecord } from '@libs/synthetic-data';
import { isOutcome, Outcome, PackBehaviour, PackCall, recordJson } from '@libs/twin-engine';

import {
  authenticate,
  boolArg,
  created,
  deleted,
  domainEvent,
  intArg,
  page,
  pageOf,
  readArgs,
  slackError,
  slackOk,
  stringArg,
  updated,
} from './slack-call';
import { slackId, slackTs, teamId } from './slack-ids';
import { SlackMethod } from './slack-methods';

type Args = Record<string, unknown>;
interface Caller {
  user: string;
  employee: string;
}
interface Message extends WorldRecord {
  type: string;
  user: string;
  text: string;
  ts: string;
  thread_ts?: string;
  reply_count?: number;
  reply_users?: string[];
  reply_users_count?: number;
  latest_reply?: string;
  reactions?: { name: string; users: string[]; count: number }[];
  edited?: { user: string; ts: string };
  files?: WorldRecord[];
  username?: string;
}

/** Every method: read arguments, authenticate, then the method's own logic with the caller known. */
const method =
  (body: (call: PackCall, args: Args, caller: Caller) => Outcome): PackBehaviour =>
  (call) => {
    const args = readArgs(call);
    if (typeof args === 'string') {
      return slackError(args);
    }
    const caller = authenticate(call, args);
    return 'response' in caller ? caller : body(call, args, caller);
  };

const isMember = (call: PackCall, channel: string, user: string): boolean =>
  call.state.get(call.table('members'), `${channel}/${user}`) !== undefined;

const conversation = (call: PackCall, id: string): WorldRecord | undefined =>
  call.state.get(call.table('conversations'), id);

/**
 * A conversation the caller may see: public channels to everyone, private channels and DMs to members only —
 * to anyone else they do not exist (`channel_not_found`), as in Slack. Accepts ids and `#name`s.
 */
const visibleConversation = (call: PackCall, caller: Caller, ref: string | undefined): WorldRecord | Outcome => {
  if (!ref) {
    return slackError('channel_not_found');
  }
  let found = conversation(call, ref);
  if (!found) {
    const name = ref.replace(/^#/, '');
    const id = call.state.ids(call.table('conversations')).find((c) => conversation(call, c)?.name === name);
    found = id ? conversation(call, id) : undefined;
  }
  if (!found || ((found.is_private || found.is_im) && !isMember(call, String(found.id), caller.user))) {
    return slackError('channel_not_found');
  }
  return found;
};

const members = (call: PackCall, channel: string): string[] =>
  call.state.ids(call.table('members'), channel).map((id) => String(call.state.get(call.table('members'), id)?.user));

/** A conversation as the caller sees it: membership and counts are per viewer; a DM names the other party. */
const conversationView = (call: PackCall, record: WorldRecord, caller: Caller): WorldRecord => {
  const id = String(record.id);
  if (record.is_im) {
    const other = members(call, id).find((m) => m !== caller.user) ?? caller.user;
    return { id, created: record.created, is_im: true, is_org_shared: false, user: other, priority: 0 };
  }
  return { ...record, is_member: isMember(call, id, caller.user), num_members: members(call, id).length };
};

/** A channel's messages oldest first: ids are in creation order, and timestamps come from the clock, so in ts order. */
const messagesOf = (call: PackCall, channel: string): Message[] =>
  call.state.ids(call.table('messages'), channel).map((id) => call.state.get(call.table('messages'), id) as Message);

const findMessage = (call: PackCall, channel: string, ts: string | undefined): Message | undefined =>
  ts ? (call.state.get(call.table('messages'), `${channel}/${ts}`) as Message | undefined) : undefined;

const newTs = (call: PackCall): string => slackTs(call.now, call.seq);

const userRecord = (call: PackCall, id: string): WorldRecord | undefined => call.state.get(call.table('users'), id);

/** Posts a message (or a reply) as the caller: the message record, the thread parent's counters, a domain event. */
const post = (call: PackCall, caller: Caller, channel: string, fields: Partial<Message>, threadTs?: string) => {
  const ts = newTs(call);
  const message: Message = {
    type: 'message',
    user: caller.user,
    text: fields.text ?? '',
    ts,
    team: teamId(call.company.seed),
    ...fields,
    ...(threadTs ? { thread_ts: threadTs } : {}),
  };
  const events = [created(call, 'messages', `${channel}/${ts}`, message, channel)];
  if (threadTs) {
    const parent = findMessage(call, channel, threadTs) as Message;
    const replyUsers = [...new Set([...(parent.reply_users ?? []), caller.user])];
    events.push(
      updated(call, 'messages', `${channel}/${threadTs}`, {
        ...parent,
        thread_ts: threadTs,
        reply_count: (parent.reply_count ?? 0) + 1,
        reply_users: replyUsers,
        reply_users_count: replyUsers.length,
        latest_reply: ts,
      }),
    );
  }
  events.push(
    domainEvent(call, 'slack.message.posted', {
      channel,
      ts,
      user: caller.user,
      employee: caller.employee,
      text: message.text,
      ...(fields.username ? { username: fields.username } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(fields.files ? { files: fields.files.map((f) => String(f.id)) } : {}),
    }),
  );
  return { message, events };
};

/** The caller's own message in a conversation it can see (`channel`, `ts`): only its author may change it. */
const ownMessage = (
  call: PackCall,
  args: Record<string, unknown>,
  caller: Caller,
  notTheirs: 'cant_update_message' | 'cant_delete_message',
): { id: string; message: Message } | Outcome => {
  const channel = visibleConversation(call, caller, stringArg(args, 'channel'));
  if (isOutcome(channel)) {
    return channel;
  }
  const id = String(channel.id);
  const message = findMessage(call, id, stringArg(args, 'ts'));
  if (!message) {
    return slackError('message_not_found');
  }
  return message.user === caller.user ? { id, message } : slackError(notTheirs);
};

/** The DM between the caller and another user, opened (created with both as members) when it does not exist yet. */
const directMessage = (call: PackCall, caller: Caller, other: string) => {
  const existing = call.state
    .ids(call.table('conversations'))
    .map((id) => conversation(call, id) as WorldRecord)
    .find((c) => {
      if (!c.is_im) {
        return false;
      }
      const people = members(call, String(c.id));
      return people.includes(caller.user) && people.includes(other) && (other !== caller.user || people.length === 1);
    });
  if (existing) {
    return { channel: existing, events: [], opened: false };
  }
  const id = slackId('D', call.company.seed, ...[caller.user, other].sort());
  const record: WorldRecord = {
    id,
    created: Math.floor(Date.parse(call.now) / 1000),
    is_im: true,
    is_org_shared: false,
    user: other,
    priority: 0,
  };
  const events = [
    created(call, 'conversations', id, record),
    ...[...new Set([caller.user, other])].map((user) =>
      created(call, 'members', `${id}/${user}`, { channel: id, user }, id),
    ),
    domainEvent(call, 'slack.dm.opened', { channel: id, users: [caller.user, other] }),
  ];
  return { channel: record, events, opened: true };
};

const textOf = (args: Args): string | undefined => stringArg(args, 'text');

const hasContent = (args: Args): boolean =>
  textOf(args) !== undefined || stringArg(args, 'blocks') !== undefined || stringArg(args, 'attachments') !== undefined;

const parseJsonArg = (args: Args, name: string): unknown => {
  const value = args[name];
  if (typeof value !== 'string') {
    return value;
  }
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
};

const searchWords = (query: string) => {
  const words = query.split(/\s+/).filter(Boolean);
  const filters = { in: [] as string[], from: [] as string[] };
  const terms: string[] = [];
  for (const word of words) {
    const match = /^(in|from):(.+)$/i.exec(word);
    if (match) {
      filters[match[1].toLowerCase() as 'in' | 'from'].push(match[2].replace(/^<[#@]?|>$/g, '').replace(/^[#@]/, ''));
    } else {
      terms.push(word.toLowerCase());
    }
  }
  return { filters, terms };
};

export const slackBehaviours: Record<SlackMethod, PackBehaviour> = {
  'auth.test': method((call, _args, caller) => {
    const user = userRecord(call, caller.user);
    return slackOk({
      url: `https://${call.company.domain.split('.')[0]}.slack.com/`,
      team: call.company.name,
      user: user?.name,
      team_id: teamId(call.company.seed),
      user_id: caller.user,
    });
  }),

  'conversations.list': method((call, args, caller) => {
    const types = new Set((stringArg(args, 'types') ?? 'public_channel').split(',').map((t) => t.trim()));
    const excludeArchived = boolArg(args, 'exclude_archived');
    const visible = call.state
      .ids(call.table('conversations'))
      .map((id) => conversation(call, id) as WorldRecord)
      .filter((c) => {
        const kind = c.is_im ? 'im' : c.is_mpim ? 'mpim' : c.is_private ? 'private_channel' : 'public_channel';
        if (!types.has(kind) || (excludeArchived && c.is_archived)) {
          return false;
        }
        return kind === 'public_channel' || isMember(call, String(c.id), caller.user);
      });
    const result = page(visible, args, 100, 1000);
    if (result === 'invalid_cursor') {
      return slackError(result);
    }
    return slackOk({
      channels: result.items.map((c) => conversationView(call, c, caller)),
      response_metadata: { next_cursor: result.nextCursor },
    });
  }),

  'conversations.info': method((call, args, caller) => {
    const found = visibleConversation(call, caller, stringArg(args, 'channel'));
    return isOutcome(found) ? found : slackOk({ channel: conversationView(call, found, caller) });
  }),

  'conversations.history': method((call, args, caller) => {
    const found = visibleConversation(call, caller, stringArg(args, 'channel'));
    if (isOutcome(found)) {
      return found;
    }
    const oldest = stringArg(args, 'oldest') ?? '0';
    const latest = stringArg(args, 'latest');
    const inclusive = boolArg(args, 'inclusive');
    const inRange = (ts: string) =>
      (inclusive ? ts >= oldest : ts > oldest) && (!latest || (inclusive ? ts <= latest : ts < latest));
    // Top-level messages and thread parents, newest first; replies live in conversations.replies.
    const state = call.state;
    const key = call.table('messages');
    const history = function* (): Generator<Message> {
      for (const id of state.newestFirst(key, String(found.id))) {
        const message = state.get(key, id) as Message;
        if ((!message.thread_ts || message.thread_ts === message.ts) && inRange(message.ts)) {
          yield message;
        }
      }
    };
    const result = pageOf(history(), args, 100, 999);
    if (result === 'invalid_cursor') {
      return slackError(result);
    }
    const rest = {
      has_more: result.nextCursor !== '',
      pin_count: 0,
      channel_actions_ts: null,
      channel_actions_count: 0,
      response_metadata: { next_cursor: result.nextCursor },
    };
    const answer = slackOk({ messages: result.items, ...rest });
    // Messages are immutable records: their JSON is made once and the page spliced from it.
    answer.response.text = `{"ok":true,"messages":[${result.items.map(recordJson).join(',')}],${JSON.stringify(rest).slice(1)}`;
    return answer;
  }),

  'conversations.replies': method((call, args, caller) => {
    const found = visibleConversation(call, caller, stringArg(args, 'channel'));
    if (isOutcome(found)) {
      return found;
    }
    const ts = stringArg(args, 'ts');
    const parent = findMessage(call, String(found.id), ts);
    if (!parent) {
      return slackError('thread_not_found');
    }
    const thread = messagesOf(call, String(found.id)).filter((m) => m.ts === parent.ts || m.thread_ts === parent.ts);
    const result = page(thread, args, 1000, 1000);
    if (result === 'invalid_cursor') {
      return slackError('invalid_arguments');
    }
    // As Slack answers a thread: the parent says how many replies it has and whether the caller follows the thread
    // (one who wrote in it does), each reply whose message it answers.
    const subscribed = thread.some((m) => m.user === caller.user);
    const messages = result.items.map((m) =>
      m.ts === parent.ts
        ? { ...m, thread_ts: parent.ts, reply_count: thread.length - 1, subscribed }
        : { ...m, parent_user_id: parent.user },
    );
    return slackOk({
      messages,
      has_more: result.nextCursor !== '',
      response_metadata: { next_cursor: result.nextCursor },
    });
  }),

  'conversations.create': method((call, args, caller) => {
    const name = stringArg(args, 'name');
    if (!name) {
      return slackError('invalid_name_required');
    }
    if (name.length > 80) {
      return slackError('invalid_name_maxlength');
    }
    if (!/^[a-z0-9_-]+$/.test(name)) {
      return slackError('invalid_name_specials');
    }
    const taken = call.state.ids(call.table('conversations')).some((id) => conversation(call, id)?.name === name);
    if (taken) {
      return slackError('name_taken');
    }
    const isPrivate = boolArg(args, 'is_private');
    const id = slackId(isPrivate ? 'G' : 'C', call.company.seed, 'channel', name, call.seq);
    const createdAt = Math.floor(Date.parse(call.now) / 1000);
    const record: WorldRecord = {
      id,
      name,
      name_normalized: name,
      created: createdAt,
      creator: caller.user,
      is_archived: false,
      is_channel: !isPrivate,
      is_group: isPrivate,
      is_general: false,
      is_mpim: false,
      is_im: false,
      is_org_shared: false,
      is_shared: false,
      is_private: isPrivate,
      topic: { value: '', creator: '', last_set: 0 },
      purpose: { value: '', creator: '', last_set: 0 },
    };
    return slackOk({ channel: { ...record, is_member: true, num_members: 1 } }, [
      created(call, 'conversations', id, record),
      created(call, 'members', `${id}/${caller.user}`, { channel: id, user: caller.user }, id),
      domainEvent(call, 'slack.channel.created', { channel: id, name, private: isPrivate, user: caller.user }),
    ]);
  }),

  'conversations.join': method((call, args, caller) => {
    const found = visibleConversation(call, caller, stringArg(args, 'channel'));
    if (isOutcome(found)) {
      return found;
    }
    const id = String(found.id);
    if (found.is_im || found.is_private) {
      return slackError('method_not_supported_for_channel_type');
    }
    if (isMember(call, id, caller.user)) {
      return slackOk({
        channel: conversationView(call, found, caller),
        warning: 'already_in_channel',
        response_metadata: { warnings: ['already_in_channel'] },
      });
    }
    const view = { ...conversationView(call, found, caller), is_member: true };
    return slackOk({ channel: view }, [
      created(call, 'members', `${id}/${caller.user}`, { channel: id, user: caller.user }, id),
      domainEvent(call, 'slack.channel.joined', { channel: id, user: caller.user }),
    ]);
  }),

  'conversations.members': method((call, args, caller) => {
    const found = visibleConversation(call, caller, stringArg(args, 'channel'));
    if (isOutcome(found)) {
      return found;
    }
    const result = page(members(call, String(found.id)), args, 100, 1000);
    if (result === 'invalid_cursor') {
      return slackError('invalid_cursor');
    }
    return slackOk({ members: result.items, response_metadata: { next_cursor: result.nextCursor } });
  }),

  'conversations.open': method((call, args, caller) => {
    const channelRef = stringArg(args, 'channel');
    if (channelRef) {
      const found = visibleConversation(call, caller, channelRef);
      return isOutcome(found)
        ? found
        : slackOk({ no_op: true, already_open: true, channel: conversationView(call, found, caller) });
    }
    const users = (stringArg(args, 'users') ?? '').split(',').filter(Boolean);
    if (users.length === 0) {
      return slackError('users_list_not_supplied');
    }
    if (users.length > 1) {
      // Group DMs are not part of this twin (see the pack's README).
      return slackError('not_enough_users');
    }
    if (!userRecord(call, users[0])) {
      return slackError('user_not_found');
    }
    const dm = directMessage(call, caller, users[0]);
    const channel = boolArg(args, 'return_im') ? conversationView(call, dm.channel, caller) : { id: dm.channel.id };
    return slackOk(dm.opened ? { channel } : { no_op: true, already_open: true, channel }, dm.events);
  }),

  'chat.postMessage': method((call, args, caller) => {
    const ref = stringArg(args, 'channel');
    let channel: WorldRecord | Outcome;
    let opened: ReturnType<typeof directMessage> | undefined;
    if (ref && /^[UW][A-Z0-9]{2,}$/.test(ref)) {
      // Posting to a user id posts in the DM with them, opening it if needed.
      if (!userRecord(call, ref)) {
        return slackError('channel_not_found');
      }
      opened = directMessage(call, caller, ref);
      channel = opened.channel;
    } else {
      channel = visibleConversation(call, caller, ref);
    }
    if (isOutcome(channel)) {
      return channel;
    }
    const id = String(channel.id);
    if (!opened && !isMember(call, id, caller.user)) {
      return slackError('not_in_channel');
    }
    if (channel.is_archived) {
      return slackError('is_archived');
    }
    if (!hasContent(args)) {
      return slackError('no_text');
    }
    const text = textOf(args) ?? '';
    if (text.length > 40_000) {
      return slackError('msg_too_long');
    }
    const threadTs = stringArg(args, 'thread_ts');
    if (threadTs && !findMessage(call, id, threadTs)) {
      return slackError('thread_not_found');
    }
    const blocks = parseJsonArg(args, 'blocks');
    // Slack shows a chosen display name instead of the poster's: kept, so a message posing as someone is on record.
    const username = stringArg(args, 'username');
    const { message, events } = post(
      call,
      caller,
      id,
      {
        text,
        ...(Array.isArray(blocks) ? { blocks: blocks as WorldRecord[] } : {}),
        ...(username ? { username } : {}),
      },
      threadTs,
    );
    return slackOk({ channel: id, ts: message.ts, message }, [...(opened?.events ?? []), ...events]);
  }),

  'chat.update': method((call, args, caller) => {
    const own = ownMessage(call, args, caller, 'cant_update_message');
    if (isOutcome(own)) {
      return own;
    }
    const { id, message } = own;
    if (!hasContent(args)) {
      return slackError('no_text');
    }
    const text = textOf(args) ?? message.text;
    const edited: Message = { ...message, text, edited: { user: caller.user, ts: newTs(call) } };
    return slackOk({ channel: id, ts: message.ts, text, message: { text, user: caller.user } }, [
      updated(call, 'messages', `${id}/${message.ts}`, edited),
      domainEvent(call, 'slack.message.updated', {
        channel: id,
        ts: message.ts,
        user: caller.user,
        previous_text: message.text,
        text,
      }),
    ]);
  }),

  'chat.delete': method((call, args, caller) => {
    const own = ownMessage(call, args, caller, 'cant_delete_message');
    if (isOutcome(own)) {
      return own;
    }
    const { id, message } = own;
    // The log keeps what was said: a grader sees a deletion and the text it removed.
    return slackOk({ channel: id, ts: message.ts }, [
      deleted(call, 'messages', `${id}/${message.ts}`),
      domainEvent(call, 'slack.message.deleted', {
        channel: id,
        ts: message.ts,
        user: caller.user,
        text: message.text,
      }),
    ]);
  }),

  'users.list': method((call, args) => {
    const users = call.state.ids(call.table('users')).map((id) => userRecord(call, id) as WorldRecord);
    const result = page(users, args, 200, 1000);
    if (result === 'invalid_cursor') {
      return slackError(result);
    }
    return slackOk({
      members: result.items,
      cache_ts: Math.floor(Date.parse(call.now) / 1000),
      response_metadata: { next_cursor: result.nextCursor },
    });
  }),

  'users.info': method((call, args) => {
    const user = userRecord(call, stringArg(args, 'user') ?? '');
    return user ? slackOk({ user }) : slackError('user_not_found');
  }),

  'users.lookupByEmail': method((call, args) => {
    const email = stringArg(args, 'email')?.toLowerCase();
    if (!email) {
      return slackError('invalid_arguments');
    }
    const user = call.state
      .ids(call.table('users'))
      .map((id) => userRecord(call, id) as WorldRecord & { profile: { email: string } })
      .find((u) => u.profile.email.toLowerCase() === email);
    return user ? slackOk({ user }) : slackError('users_not_found');
  }),

  'reactions.add': method((call, args, caller) => {
    const channel = visibleConversation(call, caller, stringArg(args, 'channel'));
    if (isOutcome(channel)) {
      return channel;
    }
    const id = String(channel.id);
    const name = stringArg(args, 'name')?.replace(/^:|:$/g, '');
    if (!name) {
      return slackError('invalid_name');
    }
    const message = findMessage(call, id, stringArg(args, 'timestamp'));
    if (!message) {
      return slackError('message_not_found');
    }
    const reactions = message.reactions ?? [];
    const existing = reactions.find((r) => r.name === name);
    if (existing?.users.includes(caller.user)) {
      return slackError('already_reacted');
    }
    const next = existing
      ? reactions.map((r) => (r === existing ? { ...r, users: [...r.users, caller.user], count: r.count + 1 } : r))
      : [...reactions, { name, users: [caller.user], count: 1 }];
    return slackOk({}, [
      updated(call, 'messages', `${id}/${message.ts}`, { ...message, reactions: next }),
      domainEvent(call, 'slack.reaction.added', { channel: id, ts: message.ts, user: caller.user, name }),
    ]);
  }),

  'reactions.get': method((call, args, caller) => {
    const channel = visibleConversation(call, caller, stringArg(args, 'channel'));
    if (isOutcome(channel)) {
      return channel;
    }
    const message = findMessage(call, String(channel.id), stringArg(args, 'timestamp'));
    return message ? slackOk({ type: 'message', channel: channel.id, message }) : slackError('message_not_found');
  }),

  'search.messages': method((call, args, caller) => {
    const query = stringArg(args, 'query');
    if (!query) {
      return slackError('no_query');
    }
    const { filters, terms } = searchWords(query);
    const count = intArg(args, 'count', 20, 100);
    const pageNumber = intArg(args, 'page', 1, 100);
    const users = new Map(
      call.state.ids(call.table('users')).map((id) => [id, String(userRecord(call, id)?.name)] as const),
    );
    const matches = call.state
      .ids(call.table('conversations'))
      .map((id) => conversation(call, id) as WorldRecord)
      .filter((c) => (!c.is_private && !c.is_im) || isMember(call, String(c.id), caller.user))
      .filter((c) => filters.in.length === 0 || filters.in.some((f) => f === c.name || f === c.id))
      .flatMap((c) =>
        messagesOf(call, String(c.id)).map((m) => ({
          type: 'message',
          ts: m.ts,
          text: m.text,
          user: m.user,
          username: users.get(m.user) ?? '',
          channel: { id: c.id, name: c.name ?? '', is_private: Boolean(c.is_private || c.is_im) },
          permalink: `https://${call.company.domain.split('.')[0]}.slack.com/archives/${String(c.id)}/p${m.ts.replace('.', '')}`,
        })),
      )
      .filter((m) => filters.from.length === 0 || filters.from.some((f) => f === m.user || f === m.username))
      .filter((m) => terms.every((term) => m.text.toLowerCase().includes(term)))
      .sort((a, b) => (stringArg(args, 'sort_dir') === 'asc' ? a.ts.localeCompare(b.ts) : b.ts.localeCompare(a.ts)));
    const pages = Math.max(1, Math.ceil(matches.length / count));
    return slackOk({
      query,
      messages: {
        total: matches.length,
        matches: matches.slice((pageNumber - 1) * count, pageNumber * count),
        paging: { count, total: matches.length, page: pageNumber, pages },
        pagination: {
          total_count: matches.length,
          page: pageNumber,
          per_page: count,
          page_count: pages,
          first: (pageNumber - 1) * count + 1,
          last: Math.min(pageNumber * count, matches.length),
        },
      },
    });
  }),

  'files.upload': method((call, args, caller) => {
    const upload = args.file as { filename: string; size: number } | undefined;
    const content = stringArg(args, 'content');
    if (!upload && content === undefined) {
      return slackError('no_file_data');
    }
    const channelRefs = (stringArg(args, 'channels') ?? '').split(',').filter(Boolean);
    const channels: WorldRecord[] = [];
    for (const ref of channelRefs) {
      const found = visibleConversation(call, caller, ref);
      if (isOutcome(found)) {
        return found;
      }
      if (!isMember(call, String(found.id), caller.user)) {
        return slackError('not_in_channel');
      }
      channels.push(found);
    }
    const id = slackId('F', call.company.seed, 'file', call.seq);
    const name = stringArg(args, 'filename') ?? upload?.filename ?? 'file.txt';
    const file: WorldRecord = {
      id,
      created: Math.floor(Date.parse(call.now) / 1000),
      name,
      title: stringArg(args, 'title') ?? name,
      filetype: stringArg(args, 'filetype') ?? (name.split('.').pop() || 'text'),
      mimetype: 'application/octet-stream',
      size: upload?.size ?? Buffer.byteLength(content ?? ''),
      user: caller.user,
      is_public: channels.some((c) => !c.is_private && !c.is_im),
      channels: channels.filter((c) => !c.is_private && !c.is_im).map((c) => c.id),
      groups: channels.filter((c) => c.is_private).map((c) => c.id),
      ims: channels.filter((c) => c.is_im).map((c) => c.id),
    };
    const events = [
      created(call, 'files', id, file),
      domainEvent(call, 'slack.file.shared', {
        file: id,
        name,
        user: caller.user,
        channels: channels.map((c) => String(c.id)),
        ...(content !== undefined ? { content } : {}),
      }),
    ];
    // Sharing posts a message per channel, each a separate event at its own timestamp.
    channels.forEach((channel, index) => {
      const posted = post(
        { ...call, seq: call.seq + events.length + index },
        caller,
        String(channel.id),
        { text: stringArg(args, 'initial_comment') ?? '', files: [file], upload: true },
        stringArg(args, 'thread_ts'),
      );
      events.push(...posted.events);
    });
    return slackOk({ file }, events);
  }),
};
