import { performReaction, voiced, VoiceSettings } from '@libs/personas';
import type { TaskInstance } from '@libs/scenarios';
import { OperatorClient, TwinCallError, TwinClient } from '@libs/twin-client';
import {
  addBusinessDays,
  businessDaysBetween,
  type AgentIdentity,
  type EpisodeServices,
  type ScheduledAction,
} from '@libs/workflow-contracts';
import { useBusinessCalendar } from '@libs/party-reactions';

// Parties write dates on the office calendar every party keeps (`add_business_days(event.at, 2)`).
useBusinessCalendar({ addBusinessDays, businessDaysBetween });

export interface ReactionInput {
  services: EpisodeServices;
  episodeId: string;
  instance: TaskInstance;
  agent: AgentIdentity;
  party: string;
  reaction: string;
  event?: ScheduledAction['event'];
  /** The scheduled action this call performs: the prefix of its writes' idempotency keys. */
  actionKey: string;
}

/** Declared parties' hands: thin, the reaction itself is libs/personas' performReaction with this worker's clients. */
export const createReactionActivities = (operatorKey: string, llmVoice?: VoiceSettings) => ({
  /** Declared parties from outside the company get their mailbox before the episode starts, as real people have. */
  async enrolOutsiders(input: { services: EpisodeServices; episodeId: string; instance: TaskInstance }): Promise<void> {
    const operator = new OperatorClient(input.services, input.episodeId, operatorKey);
    const mail = input.services.email;
    if (mail === undefined) {
      // A stack without mail: outsiders, who speak only by mail, have no mailbox to get.
      return;
    }
    for (const party of Object.values(input.instance.parties)) {
      // A supplier's contact (with an identity on the stack) has its mailbox from the world already.
      if (party.persona === 'declared' && party.employeeId === undefined && party.principal === undefined) {
        await operator.enrol(mail, { address: party.email, name: party.name });
      }
    }
  },

  async performReaction(input: ReactionInput): Promise<{ performed: boolean; reason?: string }> {
    const party = input.instance.parties[input.party];
    if (party?.persona !== 'declared') {
      throw new TwinCallError(`${input.party} is not a declared party`);
    }
    const operator = new OperatorClient(input.services, input.episodeId, operatorKey);
    return performReaction(
      {
        twin: new TwinClient(input.services, input.episodeId, input.actionKey),
        // A service that issues no tokens (a spec twin that does not authenticate) is called without one.
        tokenFor: (service, principal) =>
          service === input.services.email || service === input.services.slack || service === input.services.erp
            ? operator.token(service, principal)
            : operator.token(service, principal).catch(() => undefined),
        services: { email: input.services.email, slack: input.services.slack },
        ...(llmVoice ? { rephrase: (text: string) => voiced(llmVoice, input.instance.seed, party.name, text) } : {}),
      },
      {
        partyName: input.party,
        party,
        reaction: input.reaction,
        values: input.instance.values,
        agent: input.agent,
        ...(input.event ? { event: input.event } : {}),
      },
    );
  },
});

export type ReactionActivities = ReturnType<typeof createReactionActivities>;
