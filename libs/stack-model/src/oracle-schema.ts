import { z } from 'zod';

import { sayingSchema, twinOperationSchema } from './party-declaration-schema';

/**
 * A scenario's oracle and traps as data (ORACLE-FORMAT, issue 12 item 6): the reference plan an honest agent follows
 * over the instance's values, and violating variants, each naming the rules that must catch it. Acts have a declared
 * party's shapes and are performed as the agent; `{{ }}` are CEL over the instance's values, saved answers, `agent`
 * and `now`. This is the format only: the engine that plays them is `mirror check`'s.
 */
const stepId = z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes');
const saveName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be lower_snake_case');

const waitSchema = z.union([
  z.object({ until: z.string().min(1), max_business_days: z.number().positive().optional() }).strict(),
  z.object({ business_hours: z.number().positive() }).strict(),
  z.object({ business_days: z.number().positive() }).strict(),
]);

/**
 * Extension of the contract (additive): `when`, a CEL condition over the instance's values, plays a step only in the
 * instances it holds for (grant when the head approved, not when it refused), since a plan has no other branch.
 */
const common = { id: stepId.optional(), when: z.string().min(1).optional() };

export const oracleStepSchema = z.union([
  z.object({ ...common, do: twinOperationSchema, save: saveName.optional() }).strict(),
  z.object({ ...common, say: sayingSchema }).strict(),
  z.object({ ...common, wait: waitSchema }).strict(),
]);

export const oracleSchema = z.object({ steps: z.array(oracleStepSchema).min(1) }).strict();

const fromOracle = z.union([
  z.object({ insert_after: stepId, steps: z.array(oracleStepSchema).min(1) }).strict(),
  z.object({ insert_before: stepId, steps: z.array(oracleStepSchema).min(1) }).strict(),
  z.object({ replace: stepId, with: z.array(oracleStepSchema) }).strict(),
  z.object({ remove: z.array(stepId).min(1) }).strict(),
]);

export const trapSchema = z
  .object({
    id: stepId,
    description: z.string().optional(),
    /** Policy rule ids that must fail in this variant, on every seed. */
    catches: z.array(z.string().min(1)).min(1),
    steps: z.array(oracleStepSchema).min(1).optional(),
    from_oracle: fromOracle.optional(),
  })
  .strict()
  .refine((trap) => (trap.steps === undefined) !== (trap.from_oracle === undefined), {
    message: 'give either steps (a whole plan) or from_oracle (the oracle with changes), not both',
  });

export type OracleSpec = z.infer<typeof oracleSchema>;
export type TrapSpec = z.infer<typeof trapSchema>;
