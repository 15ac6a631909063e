import { Context } from '@temporalio/activity';

import { evaluatePredicates, judgeOutcome, OutcomeVerdict, twinOutcomeSources } from '@libs/outcomes';
import {
  acknowledgeAsSupplier,
  advanceClock,
  answerAsFinance,
  applySetupStep,
  askAsFinance,
  closeEpisode,
  companyOf,
  EpisodeContext,
  eventsPage,
  type EventsPage,
  eventsSince,
  PersonaContext,
  PersonaHands,
  postBackgroundMessage,
  replyAsSupplier,
  reviewAsApprover,
  VoiceSettings,
} from '@libs/personas';
import type { SetupStepInstance, TaskInstance } from '@libs/scenarios';
import { OperatorClient, TwinClient } from '@libs/twin-client';
import type { AgentIdentity, NegotiationMemory, SignalledEvent } from '@libs/workflow-contracts';

/**
 * The personas' hands: each activity acts as one party, through the twins over HTTP with that person's token, and
 * returns what the workflow needs to remember. Deterministic given the twins' state; retried safely because each
 * checks the state before acting (a reply is sent once per new mail, an order approved once). The behaviour is
 * libs/personas' (hands/); an activity only gives it this worker's clients.
 */
export const createPersonaActivities = (operatorKey: string, llmVoice?: VoiceSettings) => {
  /** The episode's operator routes, with the key this worker was given (never in a workflow's input). */
  const operatorOf = (input: EpisodeContext) => new OperatorClient(input.services, input.episodeId, operatorKey);
  const handsOf = (input: PersonaContext): PersonaHands => ({
    twin: new TwinClient(input.services, input.episodeId, input.actionKey),
    operator: operatorOf(input),
    ...(llmVoice ? { voice: llmVoice } : {}),
  });
  return {
    /** Histories recorded before the workflow read the log a page at a time ask for this. */
    async eventsSince(input: EpisodeContext & { afterSeq: number }): Promise<SignalledEvent[]> {
      return eventsSince(operatorOf(input), input);
    },
    async eventsPage(input: EpisodeContext & { afterSeq: number }): Promise<EventsPage> {
      return eventsPage(operatorOf(input), input);
    },
    /**
     * Keyed by the workflow run and the activity's place in it, the same in every attempt and in a workflow task
     * replayed on another worker: a retried move whose first answer was lost moves the clock once.
     */
    async advanceClock(input: EpisodeContext & { at: string }): Promise<string> {
      const { workflowExecution, activityId } = Context.current().info;
      const key = workflowExecution ? `${workflowExecution.runId}/${activityId}` : undefined;
      return advanceClock(operatorOf(input), { ...input, ...(key !== undefined ? { key } : {}) });
    },
    async closeEpisode(input: EpisodeContext): Promise<void> {
      return closeEpisode(operatorOf(input), input);
    },
    async applySetup(input: EpisodeContext & { step: SetupStepInstance }): Promise<void> {
      return applySetupStep(operatorOf(input), input);
    },
    async supplierReply(input: PersonaContext & { memory: NegotiationMemory | null }): Promise<NegotiationMemory> {
      return replyAsSupplier(handsOf(input), input);
    },
    async approverReview(input: PersonaContext & { poId: string }): Promise<void> {
      return reviewAsApprover(handsOf(input), input);
    },
    async supplierAcknowledge(input: PersonaContext & { poId: string }): Promise<void> {
      return acknowledgeAsSupplier(handsOf(input), input);
    },
    async financeQuestion(input: PersonaContext & { poId: string }): Promise<void> {
      return askAsFinance(handsOf(input), input);
    },
    async financeAnswer(input: PersonaContext & { ref: string }): Promise<void> {
      return answerAsFinance(handsOf(input), input);
    },
    async backgroundMessage(input: PersonaContext & { index: number }): Promise<void> {
      return postBackgroundMessage(handsOf(input), input);
    },

    /** Which of the named predicates hold on the twins' records now: what declared parties' state reactions wait on. */
    async statesHolding(
      input: EpisodeContext & {
        instance: TaskInstance;
        agent: AgentIdentity;
        startAt: string;
        predicates: Record<string, string>;
      },
    ): Promise<string[]> {
      const { records } = twinOutcomeSources({ ...input, operatorKey });
      const judged = await evaluatePredicates(records, input, input.predicates);
      return Object.entries(judged).flatMap(([name, verdict]) => (verdict.met ? [name] : []));
    },

    /** Whether the task's success terms are met, judged from what the twins recorded (libs/outcomes). */
    async judgeOutcome(
      input: EpisodeContext & { instance: TaskInstance; agent: AgentIdentity; startAt: string },
    ): Promise<OutcomeVerdict> {
      return judgeOutcome(twinOutcomeSources({ ...input, operatorKey }), {
        instance: input.instance,
        agent: input.agent,
        startAt: input.startAt,
        currency: companyOf(input.instance).currency,
      });
    },
  };
};

export type PersonaActivities = ReturnType<typeof createPersonaActivities>;
