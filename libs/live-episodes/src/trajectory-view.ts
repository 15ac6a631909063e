import type { LiveEpisodeRow, TrajectoryStepRow } from '@libs/persistence';
import type { LoggedEvent } from '@libs/twin-engine';

import type { EpisodeResult } from './episode-result';

const round = (value: number): number => Math.round(value * 1e6) / 1e6;

/**
 * A trajectory as trainers read it: every call of the agent in order, with its arguments, observation, wall time and
 * business time, and the twins' log positions around it (the domain events beside it are those with `after_seq < seq
 * <= through_seq`; `events` lists the whole log once the episode ended).
 *
 * Rewards on the agent's turns: `reward` is the episode's reward, on the final step only (sparse, what `mirror run`
 * reports). `process_reward` is the grader's per-step rewards (milestones met, rules broken, the outcome) credited
 * to the last call that began before the event that earned them: the call caused it, or the world answered it
 * (a counterparty's reply after a wait). They sum to the shaped signal, not to `reward`.
 */
export const trajectoryView = (
  row: LiveEpisodeRow<EpisodeResult>,
  steps: readonly TrajectoryStepRow[],
  events: readonly LoggedEvent[] | undefined,
) => {
  const result = row.result;
  const credited = steps.map(() => ({ reward: 0, why: [] as string[] }));
  for (const earned of result?.processRewards ?? []) {
    const turn = steps.reduce((last, step, i) => (step.seqBefore < earned.seq ? i : last), 0);
    if (credited[turn]) {
      credited[turn].reward += earned.reward;
      credited[turn].why.push(earned.why);
    }
  }
  const final = steps.length - 1;
  return {
    episode_id: row.id,
    environment: row.environment,
    task: row.task,
    group_id: row.groupId,
    status: row.status,
    reward: result?.reward ?? null,
    steps: steps.map((step, i) => ({
      index: step.index,
      at: step.at,
      wall_ms: round(step.wallMs),
      business_time: step.businessTime,
      call: step.call,
      observation: step.observation,
      counted: step.counted,
      events: { after_seq: step.seqBefore, through_seq: step.seqAfter },
      process_reward: round(credited[i].reward),
      process_reasons: credited[i].why,
      ...(i === final && result ? { reward: result.reward } : {}),
    })),
    /** Null while the episode runs: the log would tell the agent what its tools do not. */
    events:
      events?.map((e) => ({
        seq: e.seq,
        at: e.at,
        actor: e.actor ?? null,
        operation_id: e.operationId,
        event: e.event,
      })) ?? null,
  };
};
