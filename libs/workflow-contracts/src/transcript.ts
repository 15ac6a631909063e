import type { SignalledEvent, TranscriptEntry } from './episode-workflow';

/** The ids the agent acts under (employee id, mail address, Slack user): an event naming one of them is the agent's. */
export type AgentIdentities = ReadonlySet<string>;

/** Who caused an event: `agent` when it names one of the agent's identities, else the first party it names. */
export const actorOf = (event: SignalledEvent, agent: AgentIdentities): string => {
  const data = event.data;
  const who = [data.employee, data.by, data.from, data.user].filter((v): v is string => typeof v === 'string');
  return who.some((w) => agent.has(w)) ? 'agent' : (who[0] ?? event.service);
};

/** Whether `text` names `id` as a whole token (a mention `<@U123>`, an address in a list), in any case. */
const names = (text: string, id: string): boolean => {
  const haystack = text.toLowerCase();
  const needle = id.toLowerCase();
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1] ?? ' ';
    const after = haystack[at + needle.length] ?? ' ';
    if (!/[a-z0-9._%+-]/.test(before) && !/[a-z0-9_-]/.test(after)) {
      return true;
    }
  }
  return false;
};

const naming = (agent: AgentIdentities) => {
  const ids = [...agent].filter((id) => id !== '');
  const walk = (value: unknown): boolean =>
    typeof value === 'string'
      ? ids.some((id) => names(value, id))
      : Array.isArray(value)
        ? value.some(walk)
        : value !== null && typeof value === 'object'
          ? Object.values(value).some(walk)
          : false;
  return walk;
};

/**
 * The conversation an event opens with the agent among its participants (a direct message or group opened with it:
 * a `channel` beside a list that names the agent), whose later messages are addressed to the agent though they do
 * not name it.
 */
export const conversationWith = (event: SignalledEvent, agent: AgentIdentities): string | undefined => {
  const { channel } = event.data;
  const named = naming(agent);
  return typeof channel === 'string' && Object.values(event.data).some((v) => Array.isArray(v) && named(v))
    ? channel
    : undefined;
};

/**
 * Whether an event another party caused was addressed to the agent: one of its fields, at any depth, names one of the
 * agent's identities (a mail to or copied to it, a message mentioning it, a record assigned to it), or it happened in
 * a conversation opened with the agent (`conversationWith`). What a `wait` tells the agent, as a product notifies its
 * user: never mail between other people or posts in conversations it was not part of.
 */
export const addressedTo = (
  event: SignalledEvent,
  agent: AgentIdentities,
  conversations: ReadonlySet<string> = new Set(),
): boolean =>
  naming(agent)(event.data) || (typeof event.data.channel === 'string' && conversations.has(event.data.channel));

/** One line for the transcript, from a domain event's own fields. */
const summarize = (event: SignalledEvent): string => {
  const d = event.data;
  switch (event.name) {
    case 'email.sent':
      return `mail "${String(d.subject)}" from ${String(d.from)} to ${((d.to as string[] | undefined) ?? []).join(', ')}`;
    case 'slack.message.posted':
      return `Slack ${String(d.channel)}: ${String(d.text).slice(0, 120)}`;
    default:
      return Object.entries(d)
        .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
        .slice(0, 5)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
  }
};

/** A domain event as a line of the episode's story. */
export const transcriptEntryOf = (event: SignalledEvent, agent: AgentIdentities, actor = actorOf(event, agent)) =>
  ({ at: event.at, actor, kind: event.name, summary: summarize(event), seq: event.seq }) satisfies TranscriptEntry;

/**
 * The whole story of an episode, from its log. Built where the outcome is read, not carried by the workflow: the story
 * grows with every action, and a workflow that carried it through each hand-over and returned it would meet
 * Temporal's payload limit (2 MB) at around ten thousand actions.
 */
export const transcriptOf = (events: readonly SignalledEvent[], agent: AgentIdentities): TranscriptEntry[] =>
  events.map((event) => transcriptEntryOf(event, agent));
