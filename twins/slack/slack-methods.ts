/** The Slack Web API methods the Slack twin implements; every other method of the spec is not served. */
export const slackMethods = [
  'auth.test',
  'conversations.list',
  'conversations.info',
  'conversations.history',
  'conversations.replies',
  'conversations.create',
  'conversations.join',
  'conversations.members',
  'conversations.open',
  'chat.postMessage',
  'chat.update',
  'chat.delete',
  'users.list',
  'users.info',
  'users.lookupByEmail',
  'reactions.add',
  'reactions.get',
  'search.messages',
  'files.upload',
] as const;

export type SlackMethod = (typeof slackMethods)[number];
