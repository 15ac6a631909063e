import type { EpisodeCallRow, TrajectoryStepRow } from '@libs/persistence';
import type { LoggedEvent } from '@libs/twin-engine';

import type { ApiCall, QuietCall, ToolCall } from './review-view-models';
import { recordAnchor } from './state-diff';

export const callAnchor = (seq: number) => `c-${seq}`;
export const toolAnchor = (index: number) => `t-${index}`;
export const quietAnchor = (index: number) => `q-${index}`;

const changeOf = (type: string): ApiCall['changes'][number]['change'] | undefined =>
  type === 'record.created'
    ? 'created'
    : type === 'record.deleted'
      ? 'deleted'
      : type === 'record.updated' || type === 'record.replaced'
        ? 'updated'
        : undefined;

/**
 * The calls that wrote to the twins, from the log: consecutive events of one operation by one caller are one call
 * (its record changes, its domain events, its refusal). Reads change nothing and leave no event: they are the quiet
 * calls, recorded beside the log.
 */
export const apiCalls = (log: readonly LoggedEvent[]): ApiCall[] => {
  const calls: ApiCall[] = [];
  let current: ApiCall | undefined;
  for (const logged of log) {
    const { event } = logged;
    if (event.type === 'clock.set' || event.type === 'episode.closed' || event.type === 'idempotency.recorded') {
      current = undefined;
      continue;
    }
    const actor = logged.actor ?? null;
    if (!current || current.operationId !== logged.operationId || current.actor !== actor) {
      current = {
        anchor: callAnchor(logged.seq),
        seqs: [],
        at: logged.at,
        actor,
        service: null,
        operationId: logged.operationId,
        status: null,
        refused: null,
        changes: [],
        events: [],
      };
      calls.push(current);
    }
    current.seqs.push(logged.seq);
    if (event.type === 'operation.called') {
      current.service = event.service;
      current.status = event.status;
    } else if (event.type === 'operation.refused') {
      current.service = event.service;
      current.status = event.status;
      current.refused = event.reason;
    } else if (event.type === 'domain') {
      current.service ??= event.service;
      current.events.push(event.name);
    } else {
      const change = changeOf(event.type);
      if (change) {
        current.changes.push({ table: event.table, id: event.id, change, anchor: recordAnchor(event.table, event.id) });
      }
    }
  }
  return calls;
};

const observationText = (text: string) => (text.length > 2000 ? `${text.slice(0, 2000)}…` : text);

/** An outside agent's every call through the episode API, reads included, with what it was told. */
export const toolCalls = (steps: readonly TrajectoryStepRow[]): ToolCall[] =>
  steps.map((step) => ({
    anchor: toolAnchor(step.index),
    index: step.index,
    at: step.at,
    name: step.call.name,
    arguments: step.call.arguments,
    isError: step.observation.is_error,
    observation: observationText(step.observation.text),
    seqBefore: step.seqBefore,
    seqAfter: step.seqAfter,
  }));

/** The calls that changed nothing, as recorded beside the log, in the order they were answered. */
export const quietCalls = (rows: readonly EpisodeCallRow[]): QuietCall[] =>
  rows.map((row, index) => ({
    anchor: quietAnchor(index),
    afterSeq: row.afterSeq,
    at: row.at,
    actor: row.actor ?? null,
    service: row.service,
    operationId: row.operationId ?? null,
    method: row.method,
    path: row.path,
    status: row.status,
  }));
