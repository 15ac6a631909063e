import { Context } from '@temporalio/activity';

import { advanceClock, eventsPage, type EventsPage, type PersonaContext } from '@libs/personas';
import { OperatorClient } from '@libs/twin-client';
import type { NegotiationMemory, ScheduledAction } from '@libs/workflow-contracts';

import type { PersonaActivities } from './persona.activities';
import type { ReactionActivities } from './reaction.activities';

/** One scheduled action of another party, as the fused turn performs it: its kind and what that kind needs. */
export type PartyAction =
  | { kind: 'supplier-reply'; memory: NegotiationMemory | null }
  | { kind: 'approver-review' | 'supplier-acknowledge' | 'finance-question'; poId: string }
  | { kind: 'finance-answer'; ref: string }
  | { kind: 'noise'; index: number }
  | { kind: 'reaction'; reaction: string; event?: ScheduledAction['event'] }
  /** A step that does nothing but move the clock (a finance answer owed by someone who is no finance colleague). */
  | { kind: 'none' };

export interface PartyTurnInput extends PersonaContext {
  /** Where the business clock moves before the step. */
  at: string;
  action: PartyAction;
  /** The log is read from here once the step is done. */
  afterSeq: number;
}

export interface PartyTurn {
  now: string;
  /** A supplier's negotiation memory after its reply; absent for every other kind. */
  memory?: NegotiationMemory;
  /** The first page of the log after `afterSeq`, read after the step. */
  page: EventsPage;
}

/**
 * Moving the clock, one party's step and the first page of the log after it, as one local activity: the workflow ran
 * them as three, each a workflow activation and a round of payload conversion on the worker, which under load was a
 * good part of an episode's CPU. They run in the same order as before, so the twins record the same events; each part
 * stays idempotent (the clock's move keyed by this activity, the step's writes by the action), so a retry repeats
 * nothing.
 */
export const createPartyTurnActivities = (
  operatorKey: string,
  acts: PersonaActivities,
  reactions: ReactionActivities,
) => ({
  async partyTurn(input: PartyTurnInput): Promise<PartyTurn> {
    const { at, action, afterSeq, ...context } = input;
    const operator = new OperatorClient(context.services, context.episodeId, operatorKey);
    const { workflowExecution, activityId } = Context.current().info;
    const now = await advanceClock(operator, {
      ...context,
      at,
      ...(workflowExecution ? { key: `${workflowExecution.runId}/${activityId}` } : {}),
    });
    let memory: NegotiationMemory | undefined;
    switch (action.kind) {
      case 'supplier-reply':
        memory = await acts.supplierReply({ ...context, memory: action.memory });
        break;
      case 'approver-review':
        await acts.approverReview({ ...context, poId: action.poId });
        break;
      case 'supplier-acknowledge':
        await acts.supplierAcknowledge({ ...context, poId: action.poId });
        break;
      case 'finance-question':
        await acts.financeQuestion({ ...context, poId: action.poId });
        break;
      case 'finance-answer':
        await acts.financeAnswer({ ...context, ref: action.ref });
        break;
      case 'noise':
        await acts.backgroundMessage({ ...context, index: action.index });
        break;
      case 'reaction':
        await reactions.performReaction({
          ...context,
          reaction: action.reaction,
          ...(action.event ? { event: action.event } : {}),
        });
        break;
      case 'none':
        break;
    }
    const page = await eventsPage(operator, { ...context, afterSeq });
    return { now, ...(memory !== undefined ? { memory } : {}), page };
  },
});

export type PartyTurnActivities = ReturnType<typeof createPartyTurnActivities>;
