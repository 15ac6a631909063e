import type { SetupStepInstance } from '@libs/scenarios';
import { OperatorClient, TwinCallError } from '@libs/twin-client';
import { packService, type SignalledEvent } from '@libs/workflow-contracts';

import type { EpisodeContext } from './persona-hands';

/**
 * What the twins recorded after `afterSeq`: the events the workflow reacts to. A refusal throws (the activity is
 * retried): handing the workflow an error body instead of events fails its task for good.
 */
export const eventsSince = async (
  operator: OperatorClient,
  input: EpisodeContext & { afterSeq: number },
): Promise<SignalledEvent[]> => {
  const { status, body } = await operator.admin<{ events?: SignalledEvent[]; message?: string }>(
    `/events?after=${input.afterSeq}`,
  );
  if (status !== 200 || !Array.isArray(body.events)) {
    throw new TwinCallError(
      `the events of episode ${input.episodeId} could not be read: ${status} ${body.message ?? ''}`,
    );
  }
  return body.events;
};

/** A page of what the twins recorded after `afterSeq`, and whether to read on from `lastSeq`. */
export interface EventsPage {
  events: SignalledEvent[];
  lastSeq: number;
  more: boolean;
}

/**
 * What the twins recorded after `afterSeq`, a page at a time (the twins bound its size): a workflow records each read
 * in its history, and one read of everything an agent did between two waits could pass Temporal's payload limit.
 */
export const eventsPage = async (
  operator: OperatorClient,
  input: EpisodeContext & { afterSeq: number },
): Promise<EventsPage> => {
  const { status, body } = await operator.admin<Partial<EventsPage> & { message?: string }>(
    `/events?after=${input.afterSeq}&page=1`,
  );
  if (status !== 200 || !Array.isArray(body.events) || typeof body.lastSeq !== 'number') {
    throw new TwinCallError(
      `the events of episode ${input.episodeId} could not be read: ${status} ${body.message ?? ''}`,
    );
  }
  return { events: body.events, lastSeq: body.lastSeq, more: body.more === true };
};

/**
 * Moves the business clock to `at`, or leaves it where the agent's own actions already took it. `key` names this
 * move across its retries: a move whose answer was lost, sent again, adds no second clock event.
 */
export const advanceClock = async (
  operator: OperatorClient,
  input: EpisodeContext & { at: string; key?: string },
): Promise<string> => {
  const moved = await operator.admin<{ now: string }>('/clock', {
    body: { at: input.at, ...(input.key !== undefined ? { key: input.key } : {}) },
  });
  if (moved.status === 200) {
    return moved.body.now;
  }
  const episode = await operator.admin<{ now?: string; message?: string }>('');
  if (episode.status !== 200 || typeof episode.body.now !== 'string') {
    throw new TwinCallError(
      `the clock of episode ${input.episodeId} could not be read: ${episode.status} ${episode.body.message ?? ''}`,
    );
  }
  return episode.body.now;
};

/** Ends the twins' episode with the workflow: from now on they refuse writes, so the graded state is final. */
export const closeEpisode = async (operator: OperatorClient, input: EpisodeContext): Promise<void> => {
  const { status } = await operator.admin('/close', { body: {} });
  if (status !== 200) {
    throw new Error(`the episode ${input.episodeId} could not be closed: HTTP ${status}`);
  }
};

/** Puts a scenario setup step into the twins before the agent starts: a seeded record, a frozen budget. */
export const applySetupStep = async (
  operator: OperatorClient,
  input: EpisodeContext & { step: SetupStepInstance },
): Promise<void> => {
  const seeded = input.step.record;
  if (seeded) {
    const { status } = await operator.admin('/records', {
      body: { table: `${seeded.service}/${seeded.table}`, id: seeded.id, set: seeded.fields, create: true },
    });
    if (status !== 200 && status !== 201) {
      throw new TwinCallError(`could not put ${seeded.id} in ${seeded.service}/${seeded.table}: ${status}`);
    }
  }
  if (input.step.freezeBudget) {
    const { status } = await operator.admin('/records', {
      body: {
        table: `${packService(input.services, 'erp')}/cost-centres`,
        id: input.step.freezeBudget,
        set: { frozen: true },
      },
    });
    if (status !== 200) {
      throw new TwinCallError(`could not freeze ${input.step.freezeBudget}: ${status}`);
    }
  }
};
