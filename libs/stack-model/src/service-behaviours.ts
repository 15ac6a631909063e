import { z } from 'zod';

const expression = z.string().min(1, 'an expression (CEL) is needed');
const name = z.string().min(1);

/**
 * A state machine of one resource's field: the states it may hold and, per operation id, the states the operation may
 * start from and the one it leaves. A call from any other state is refused with the spec's 409 (or 400/422, or
 * `status`), naming the state.
 */
export const stateMachineSchema = z
  .object({
    resource: name,
    field: name,
    states: z.array(name).min(1),
    /** The state a created record starts in. */
    initial: name.optional(),
    transitions: z.record(name, z.object({ from: z.array(name).min(1).optional(), to: name.optional() }).strict()),
    /** The status of a refused transition; the first of 409, 422, 400 the operation declares when left out. */
    status: z.number().int().min(400).max(499).optional(),
  })
  .strict();

/**
 * An operation creates or updates a record of another resource. Field values are CEL over `request` (the body),
 * `params` (path parameters), `record` (the operation's record after its change), `previous` (before it), `target`
 * (for an update, the record being updated) and `now`.
 */
export const sideEffectSchema = z
  .object({
    on: name,
    when: expression.optional(),
    create: name.optional(),
    update: name.optional(),
    /** The id of the record to update, or the parent's id of a nested record to create. */
    id: expression.optional(),
    fields: z.record(name, expression),
  })
  .strict()
  .refine((effect) => (effect.create === undefined) !== (effect.update === undefined), {
    message: 'give one of "create" or "update" (a resource of this service)',
  })
  .refine((effect) => effect.update === undefined || effect.id !== undefined, {
    message: 'an update needs "id": an expression giving the id of the record to update',
  });

/** A field the twin computes on every write of the resource's records, as CEL over `record`. */
export const derivedFieldSchema = z.object({ resource: name, field: name, value: expression }).strict();

/** `behaviours:` of a service in `mirror.yaml`: what its twin does beyond CRUD, declared instead of coded. */
export const serviceBehavioursSchema = z
  .object({
    stateMachines: z.array(stateMachineSchema).optional(),
    sideEffects: z.array(sideEffectSchema).optional(),
    derived: z.array(derivedFieldSchema).optional(),
  })
  .strict();

export type ServiceBehaviours = z.infer<typeof serviceBehavioursSchema>;
export type StateMachine = z.infer<typeof stateMachineSchema>;
export type SideEffect = z.infer<typeof sideEffectSchema>;
export type DerivedField = z.infer<typeof derivedFieldSchema>;

/** The names behaviour expressions may read. */
export const behaviourExpressionNames = ['request', 'params', 'record', 'previous', 'target', 'now'] as const;
