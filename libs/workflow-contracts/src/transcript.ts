import type { SignalledEvent, TranscriptEntry } from './episode-workflow';

/** The ids the agent acts under (employee id, mail address, Slack user): an event naming one of them is the agent's. */
export type AgentIdentities = ReadonlySet<string>;

/** Who caused an event: `agent` when it names one of the agent's identities, else the first party it names. */
export const actorOf = (event: SignalledEvent, agent: AgentIdentities): string => {
  const data = event.data;
  const who = [data.employee, data.by, data.from, data.user].filter((v): v is string => typeof v === 'string');
  return who.some((w) => agent.has(w)) ? 'agent' : (who[0] ?? event.service);
};

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
