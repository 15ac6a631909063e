import type { ResourceShape } from '@libs/openapi-schemas';
import type { WorldRecord } from '@libs/synthetic-data';

import { changeRecord, CrudContext, Outcome } from '../crud-behaviour';
import type { EpisodeEvent } from '../episode-events';
import type { TwinResponse } from '../twin-http';
import { ItemAction, StateChange, stateChangeOf } from './action-detection';
import { wordsOf } from './verb-forms';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Verbs named by request bodies are the caller's words: only so many distinct ones are remembered per action. */
const rememberedVerbs = 64;

/**
 * Does item actions to an episode's records: finds the item (the spec's 404 when it does not exist, or when it is not
 * under the parent the path names), changes its state as the spec shows, and answers with the stored record shaped by
 * the action's response schema. The change is a `record.updated` event, and a domain event named for the verb
 * (`helpdesk.tickets.escalate`) tells what was done.
 */
export class ItemActions {
  private readonly changes = new Map<string, StateChange>();

  constructor(
    private readonly document: unknown,
    readonly actions: Map<number, ItemAction>,
  ) {}

  of(index: number): ItemAction | undefined {
    return this.actions.get(index);
  }

  /** The verbs a call names: the path's (`escalate`) and the body's (`{ "type": "power_off" }`). */
  verbsOf(action: ItemAction, body: unknown): string[] {
    const named = action.verbField && isObject(body) ? body[action.verbField] : undefined;
    return [action.verb, typeof named === 'string' ? named : undefined].filter(
      (v): v is string => v !== undefined && wordsOf(v).length > 0,
    );
  }

  /** What the call changes on the item: the description's state, then the example's, then the verbs' own. */
  changeOf(action: ItemAction, verbs: string[], now: string): Record<string, unknown> {
    const change: Record<string, unknown> = { ...action.describedChanges, ...action.exampleChanges };
    for (const verb of verbs) {
      const { values, times } = this.stateChange(action.plan.shape, verb);
      Object.assign(change, values);
      for (const [field, format] of Object.entries(times)) {
        change[field] = format === 'date' ? now.slice(0, 10) : now;
      }
    }
    return change;
  }

  private stateChange(shape: ResourceShape, verb: string): StateChange {
    const key = `${shape.key}\u0000${verb}`;
    let change = this.changes.get(key);
    if (!change) {
      change = stateChangeOf(this.document, shape, verb);
      if (this.changes.size < rememberedVerbs * Math.max(1, this.actions.size)) {
        this.changes.set(key, change);
      }
    }
    return change;
  }

  /** The call's path parameters under the names the item's own paths give them. */
  itemPath(action: ItemAction, path: Record<string, unknown>): Record<string, unknown> {
    const mapped = { ...path };
    for (const [item, own] of action.pathNames) {
      mapped[item] = path[own];
    }
    return mapped;
  }

  /**
   * Does an action whose operation CRUD does not answer: the item's state changes, with the body's fields that are
   * record fields (the caller's `resolution` when closing a ticket), and `extra` (an overlay's transition) over all.
   * `answer` is the spec's own answer, for an action whose response is not the item.
   */
  perform(
    action: ItemAction,
    context: CrudContext,
    answer: () => TwinResponse,
    extra: Record<string, unknown> = {},
  ): Outcome {
    const body = context.request.body;
    const verbs = this.verbsOf(action, body);
    const change = { ...(isObject(body) ? body : {}), ...this.changeOf(action, verbs, context.now), ...extra };
    const outcome = changeRecord(
      {
        ...context,
        plan: action.plan,
        request: { ...context.request, path: this.itemPath(action, context.request.path), body: change },
      },
      'record.updated',
    );
    if (outcome.response.status >= 300) {
      return outcome;
    }
    return {
      response: action.answersRecord ? outcome.response : answer(),
      events: [...outcome.events, ...this.told(action, verbs, outcome.events)],
    };
  }

  /**
   * After a child resource's create (`POST /droplets/{id}/actions` made an action record), the parent the body's verb
   * acts on changes state too, when the verb names one of its states.
   */
  afterChildCreate(action: ItemAction, context: CrudContext, created: Outcome): Outcome {
    const verbs = this.verbsOf(action, context.request.body);
    const change = this.changeOf(action, verbs, context.now);
    const made = created.events.find((e) => e.type === 'record.created');
    if (!made || Object.keys(change).length === 0 || created.response.status >= 300) {
      return created;
    }
    const { shape } = action.plan;
    const path = this.itemPath(action, context.request.path);
    const raw = path[shape.resource.idParameter ?? ''];
    const id = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '';
    const parent = context.state.get(shape.key, id);
    if (!parent) {
      return created;
    }
    const record: WorldRecord = { ...parent, ...change };
    const updated: EpisodeEvent = { type: 'record.updated', table: shape.key, id, record };
    return { ...created, events: [...created.events, updated, ...this.told(action, verbs, [updated])] };
  }

  private told(action: ItemAction, verbs: string[], events: EpisodeEvent[]): EpisodeEvent[] {
    const { shape } = action.plan;
    const updated = events.find(
      (e): e is Extract<EpisodeEvent, { type: 'record.replaced' | 'record.updated' }> =>
        e.type === 'record.updated' && e.table === shape.key,
    );
    const verb = verbs[verbs.length - 1];
    if (!updated || verb === undefined) {
      return [];
    }
    const table = shape.resource.name;
    return [
      {
        type: 'domain',
        name: `${shape.service}.${table}.${wordsOf(verb).join('_')}`,
        service: shape.service,
        data: { table, id: updated.id, operationId: action.plan.operation.id, record: updated.record },
      },
    ];
  }
}
