import { eventNames } from '@libs/twin-engine';

/** The Slack pack's domain events, by name: what scenarios and graders read from an episode's log. */
export type SlackDomainEvents = {
  'slack.message.posted': {
    channel: string;
    ts: string;
    user: string;
    employee: string;
    text: string;
    /** The display name the poster chose (`username`), shown instead of their own. */
    username?: string;
    thread_ts?: string;
    files?: string[];
  };
  /** With the text it replaced, so an edit cannot hide what was said. */
  'slack.message.updated': { channel: string; ts: string; user: string; previous_text: string; text: string };
  /** With the text it removed. */
  'slack.message.deleted': { channel: string; ts: string; user: string; text: string };
  'slack.reaction.added': { channel: string; ts: string; user: string; name: string };
  'slack.channel.created': { channel: string; name: string; private: boolean; user: string };
  'slack.channel.joined': { channel: string; user: string };
  'slack.dm.opened': { channel: string; users: string[] };
  'slack.file.shared': { file: string; name: string; user: string; channels: string[]; content?: string };
};

export const slackEventNames = eventNames<SlackDomainEvents>({
  'slack.message.posted': true,
  'slack.message.updated': true,
  'slack.message.deleted': true,
  'slack.reaction.added': true,
  'slack.channel.created': true,
  'slack.channel.joined': true,
  'slack.dm.opened': true,
  'slack.file.shared': true,
});
