import type { ResourceShape } from '@libs/openapi-schemas';
import {
  BehaviourExpressionError,
  evaluateBehaviourExpression,
  type DerivedField,
  type ServiceModel,
  type SideEffect,
  type StateMachine,
} from '@libs/stack-ingestion';
import type { WorldRecord } from '@libs/synthetic-data';

import { detectActions, ItemAction } from '../actions/action-detection';
import { replaceExactIntegers } from '../exact-integers';
import { ItemActions } from '../actions/item-actions';
import { createRecord, type CrudContext, type Outcome } from '../crud-behaviour';
import type { EpisodeEvent } from '../episode-events';
import type { OperationPlan } from '../operation-plan';
import { patchResponse } from './response-patch';

type CrudPlan = OperationPlan & { shape: ResourceShape };
type RecordEvent = Extract<EpisodeEvent, { record: WorldRecord }>;

interface Transition {
  machine: StateMachine;
  shape: ResourceShape;
  from?: string[];
  to?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asText = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;

const isRecordEvent = (event: EpisodeEvent): event is RecordEvent =>
  event.type === 'record.created' || event.type === 'record.updated' || event.type === 'record.replaced';

/**
 * What a client's service does beyond CRUD: actions on items (`POST /tickets/{id}/escalate`) and the bundle's
 * `behaviours:` overlay (state machines, side effects, derived fields). Answers the operations these concern and
 * leaves every other one (undefined) to the generic twin.
 */
export class ServiceBehaviours {
  readonly actions: ItemActions;
  private readonly transitions = new Map<string, Transition[]>();
  private readonly initial = new Map<string, { field: string; state: string }[]>();
  private readonly effects = new Map<string, SideEffect[]>();
  private readonly derived = new Map<string, DerivedField[]>();
  private readonly shapes: Map<string, ResourceShape>;
  private readonly creates = new Map<string, CrudPlan>();

  constructor(service: ServiceModel, shapes: ResourceShape[], plans: OperationPlan[]) {
    this.actions = new ItemActions(service.document, detectActions(service, shapes, plans));
    this.shapes = new Map(shapes.map((shape) => [shape.resource.name, shape]));
    for (const plan of plans) {
      if (plan.role === 'create' && plan.shape && !this.creates.has(plan.shape.resource.name)) {
        this.creates.set(plan.shape.resource.name, plan as CrudPlan);
      }
    }
    const overlay = service.behaviours ?? {};
    // Ingestion checked every name; a service model stored before that check simply skips what it cannot find.
    for (const machine of overlay.stateMachines ?? []) {
      const shape = this.shapes.get(machine.resource);
      if (!shape) {
        continue;
      }
      if (machine.initial !== undefined) {
        this.initial.set(shape.key, [
          ...(this.initial.get(shape.key) ?? []),
          { field: machine.field, state: machine.initial },
        ]);
      }
      for (const [operationId, transition] of Object.entries(machine.transitions)) {
        this.transitions.set(operationId, [
          ...(this.transitions.get(operationId) ?? []),
          { machine, shape, ...transition },
        ]);
      }
    }
    for (const effect of overlay.sideEffects ?? []) {
      this.effects.set(effect.on, [...(this.effects.get(effect.on) ?? []), effect]);
    }
    for (const derived of overlay.derived ?? []) {
      const shape = this.shapes.get(derived.resource);
      if (shape) {
        this.derived.set(shape.key, [...(this.derived.get(shape.key) ?? []), derived]);
      }
    }
  }

  execute(
    plan: OperationPlan,
    context: (plan: CrudPlan) => CrudContext,
    crud: (context: CrudContext) => Outcome,
    generic: () => Outcome,
  ): Outcome | undefined {
    const action = this.actions.of(plan.index);
    const transitions = this.transitions.get(plan.operation.id);
    const effects = this.effects.get(plan.operation.id);
    const writes =
      plan.shape !== undefined &&
      (plan.role === 'create' || plan.role === 'replace' || plan.role === 'update') &&
      (this.derived.has(plan.shape.key) || this.initial.has(plan.shape.key));
    if (!action && !transitions && !effects && !writes) {
      return undefined;
    }
    const crudPlan = action && !action.childCreate ? action.plan : plan.shape ? (plan as CrudPlan) : undefined;
    const ctx = crudPlan ? context(crudPlan) : undefined;
    const subject = ctx ? this.subjectOf(action, ctx) : undefined;
    const previous = subject ? ctx?.state.get(subject.shape.key, subject.id) : undefined;

    const moves = (transitions ?? []).filter((t) => subject && t.shape.key === subject.shape.key);
    for (const move of moves) {
      const current = previous?.[move.machine.field];
      if (previous && move.from && !move.from.includes(String(current))) {
        return this.refusal(plan, ctx as CrudContext, move, subject?.id ?? '', current);
      }
    }
    const moved = Object.fromEntries(
      moves.filter((m) => m.to !== undefined).map((m) => [m.machine.field, m.to] as const),
    );

    let outcome: Outcome;
    if (action && !action.childCreate && ctx) {
      outcome = this.actions.perform(action, ctx, () => generic().response, moved);
    } else if (action?.childCreate && ctx) {
      outcome = this.actions.afterChildCreate(action, ctx, crud(ctx));
    } else if (ctx && plan.role) {
      outcome = crud(ctx);
    } else {
      outcome = generic();
    }
    if (outcome.response.status >= 300) {
      return outcome;
    }
    // A create's own transition (`createTicket: { to: open }`) sets the state of the record it made.
    const createdTransitions =
      plan.role === 'create' && plan.shape
        ? (transitions ?? []).filter((t) => t.to !== undefined && t.shape.key === plan.shape?.key)
        : [];
    outcome = this.settle(outcome, (event) => {
      const changes: Record<string, unknown> = {};
      if (event.type === 'record.created') {
        for (const { field, state } of this.initial.get(event.table) ?? []) {
          changes[field] = state;
        }
        for (const t of createdTransitions) {
          changes[t.machine.field] = t.to;
        }
      } else if (subject && event.table === subject.shape.key && event.id === subject.id && !action) {
        Object.assign(changes, moved);
      }
      return changes;
    });
    return this.withEffects(plan, outcome, effects ?? [], context, ctx, previous);
  }

  /** The record the operation acts on, by the path's id: the item of an action, or of a CRUD item operation. */
  private subjectOf(
    action: ItemAction | undefined,
    ctx: CrudContext,
  ): { shape: ResourceShape; id: string } | undefined {
    const shape = ctx.plan.shape;
    if (action?.childCreate || ctx.plan.role === 'create' || ctx.plan.role === 'list') {
      return undefined;
    }
    const path = action ? this.actions.itemPath(action, ctx.request.path) : ctx.request.path;
    const id = asText(path[shape.resource.idParameter ?? '']);
    return id === undefined ? undefined : { shape, id };
  }

  private refusal(plan: OperationPlan, ctx: CrudContext, move: Transition, id: string, current: unknown): Outcome {
    const declared = new Set(plan.operation.responses.map((r) => r.status));
    const status = move.machine.status ?? [409, 422, 400].find((s) => declared.has(String(s))) ?? 409;
    const leaf = move.shape.resource.name.split('.').pop() ?? move.shape.resource.name;
    const message = `${leaf} ${id} is ${String(current)}: ${plan.operation.id} needs ${move.machine.field} ${(move.from ?? []).join(' or ')}`;
    return { response: ctx.responses.error(plan, status, 'invalid_state', message), events: [] };
  }

  /**
   * Lays each written record's fixed changes and its derived fields over it, in the events and in the answer, so what
   * is stored, what is told and what the caller reads agree.
   */
  private settle(outcome: Outcome, changesOf: (event: RecordEvent) => Record<string, unknown>): Outcome {
    let response = outcome.response;
    const settled = new Map<string, WorldRecord>();
    const events = outcome.events.map((event): EpisodeEvent => {
      if (!isRecordEvent(event)) {
        return event;
      }
      const fixed = { ...event.record, ...changesOf(event) };
      const record = { ...fixed, ...this.derive(event.table, fixed) };
      const changed = Object.keys(record).filter((field) => record[field] !== event.record[field]);
      if (changed.length === 0) {
        return event;
      }
      const shape = [...this.shapes.values()].find((s) => s.key === event.table);
      if (shape) {
        response = patchResponse(response, shape, event.id, Object.fromEntries(changed.map((f) => [f, record[f]])));
      }
      settled.set(`${event.table}\u0000${event.id}`, record);
      return { ...event, record };
    });
    if (settled.size === 0) {
      return outcome;
    }
    // A domain event that carries the record (an action's) tells the settled one.
    const told = events.map((event): EpisodeEvent => {
      if (event.type !== 'domain' || !isObject(event.data.record)) {
        return event;
      }
      const shape = this.shapes.get(String(event.data.table));
      const record = shape ? settled.get(`${shape.key}\u0000${String(event.data.id)}`) : undefined;
      return record ? { ...event, data: { ...event.data, record } } : event;
    });
    return { response, events: told };
  }

  private derive(table: string, record: WorldRecord): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const derived of this.derived.get(table) ?? []) {
      const value = this.evaluate(derived.value, { record: { ...record, ...values } });
      if (value !== undefined) {
        values[derived.field] = value;
      }
    }
    return values;
  }

  /** An expression that fails on this record (a field it reads is absent) changes nothing rather than failing the call. */
  private evaluate(source: string, names: Record<string, unknown>): unknown {
    try {
      // CEL refuses classes it does not know: an integer beyond 2^53 from a body is given as CEL's own (BigInt).
      return evaluateBehaviourExpression(
        source,
        replaceExactIntegers(names, (boxed) => boxed.toBigInt()) as typeof names,
      );
    } catch (error) {
      if (error instanceof BehaviourExpressionError) {
        return undefined;
      }
      throw error;
    }
  }

  /** The operation's side effects, after it succeeded: records of other resources created or updated. */
  private withEffects(
    plan: OperationPlan,
    outcome: Outcome,
    effects: SideEffect[],
    context: (plan: CrudPlan) => CrudContext,
    ctx: CrudContext | undefined,
    previous: WorldRecord | undefined,
  ): Outcome {
    if (effects.length === 0) {
      return outcome;
    }
    const written = outcome.events.find(isRecordEvent);
    // Every context holds the same request and clock; only CRUD reads its plan.
    const base = ctx ?? context(plan as CrudPlan);
    const names: Record<string, unknown> = {
      request: base.request.body ?? null,
      params: base.request.path,
      record: written?.record ?? previous ?? null,
      previous: previous ?? null,
      now: base.now,
    };
    const events: EpisodeEvent[] = [];
    for (const effect of effects) {
      if (effect.when !== undefined && this.evaluate(effect.when, names) !== true) {
        continue;
      }
      const made = effect.create ? this.createFor(effect, names, context) : this.updateFor(effect, names, ctx);
      events.push(...made);
    }
    const effected = this.settle({ response: outcome.response, events }, () => ({}));
    return { response: outcome.response, events: [...outcome.events, ...effected.events] };
  }

  private createFor(
    effect: SideEffect,
    names: Record<string, unknown>,
    context: (plan: CrudPlan) => CrudContext,
  ): EpisodeEvent[] {
    const create = this.creates.get(effect.create as string);
    if (!create) {
      return [];
    }
    const body = this.fieldsOf(effect, names);
    const base = context(create);
    const path: Record<string, unknown> = {};
    const parentParameter = create.shape.resource.collectionPath.match(/\{([^}]+)\}(?!.*\{)/)?.[1];
    if (parentParameter && effect.id !== undefined) {
      path[parentParameter] = this.evaluate(effect.id, names);
    }
    const made = createRecord({ ...base, request: { ...base.request, path, query: {}, body } });
    return made.response.status < 300 ? made.events : [];
  }

  private updateFor(effect: SideEffect, names: Record<string, unknown>, ctx: CrudContext | undefined): EpisodeEvent[] {
    const shape = this.shapes.get(effect.update as string);
    const id = asText(this.evaluate(effect.id as string, names));
    const target = shape && id !== undefined ? ctx?.state.get(shape.key, id) : undefined;
    if (!shape || id === undefined || !target) {
      return [];
    }
    const fields = this.fieldsOf(effect, { ...names, target });
    return [{ type: 'record.updated', table: shape.key, id, record: { ...target, ...fields } }];
  }

  private fieldsOf(effect: SideEffect, names: Record<string, unknown>): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    for (const [field, source] of Object.entries(effect.fields)) {
      const value = this.evaluate(source, names);
      if (value !== undefined) {
        fields[field] = value;
      }
    }
    return fields;
  }
}
