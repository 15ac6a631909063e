import { z } from 'zod';

import { twinOperationSchema } from './party-declaration-schema';

/**
 * A scenario's oracle and traps as data (issue 12, item 6): the reference plan an honest agent follows over the
 * instance's values, and violating variants of it, each naming the policy rules that must catch it. `mirror check`
 * plays them on many seeds. `{{ }}` templates are CEL over the instance's values, saved answers, `agent` and `now`.
 */
const stepId = z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes');
const savedName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be lower_snake_case');

const mailSaying = z
  .object({
    to: z.string().min(1),
    subject: z.string().min(1),
    /** The mail's text; `body` is accepted as a party's acts spell it. */
    text: z.string().min(1).optional(),
    body: z.string().min(1).optional(),
  })
  .strict()
  .refine((m) => (m.text === undefined) !== (m.body === undefined), { message: 'give text (or body), one of them' });

const slackSaying = z
  .object({
    channel: z.string().min(1),
    text: z.string().min(1),
    /** Answer in the thread of this message's `ts` (a template over a saved answer). */
    thread_ts: z.string().min(1).optional(),
  })
  .strict();

const waitSchema = z.union([
  z
    .object({
      /** A CEL predicate in the success predicates' context (PREDICATES.md); the plan waits until it holds… */
      until: z.string().min(1).max(4000),
      /** …for at most this many business days (then it goes on, as a person would). */
      max_business_days: z.number().positive().max(365).default(5),
    })
    .strict(),
  z.object({ business_hours: z.number().positive().max(2000) }).strict(),
  z.object({ business_days: z.number().positive().max(365) }).strict(),
]);

/**
 * Beyond the shared contract (additive): `when`, a CEL condition over the instance's values, plays a step only in the
 * instances it holds for (grant when the head approved, not when it refused), since a plan has no other branch.
 */
const when = z.string().min(1).max(4000).optional();

export const planStepSchema = z.union([
  z
    .object({
      id: stepId.optional(),
      when,
      do: twinOperationSchema,
      /** The parsed JSON answer, usable by this name in later templates. */
      save: savedName.optional(),
    })
    .strict(),
  z
    .object({
      id: stepId.optional(),
      when,
      say: z.union([z.object({ mail: mailSaying }).strict(), z.object({ slack: slackSaying }).strict()]),
      save: savedName.optional(),
    })
    .strict(),
  z.object({ id: stepId.optional(), when, wait: waitSchema }).strict(),
]);

const edit = z
  .object({
    insert_after: stepId.optional(),
    insert_before: stepId.optional(),
    replace: stepId.optional(),
    /** The steps `replace` puts instead of the step it names. */
    with: z.array(planStepSchema).optional(),
    remove: z.array(stepId).min(1).optional(),
    /** The steps `insert_after` or `insert_before` insert. */
    steps: z.array(planStepSchema).optional(),
  })
  .strict()
  .superRefine((e, context) => {
    const anchors = [e.insert_after, e.insert_before, e.replace].filter((a) => a !== undefined);
    if (anchors.length > 1) {
      context.addIssue({ code: 'custom', message: 'give one of insert_after, insert_before or replace' });
    }
    if (anchors.length === 0 && e.remove === undefined) {
      context.addIssue({ code: 'custom', message: 'give insert_after, insert_before, replace or remove' });
    }
    if ((e.insert_after !== undefined || e.insert_before !== undefined) && e.steps === undefined) {
      context.addIssue({ code: 'custom', message: 'an insertion needs steps', path: ['steps'] });
    }
    if (e.replace !== undefined && e.with === undefined) {
      context.addIssue({ code: 'custom', message: 'replace needs with', path: ['with'] });
    }
  });

export const oraclePlanSchema = z.object({ steps: z.array(planStepSchema).min(1) }).strict();

export const trapSchema = z
  .object({
    id: stepId,
    description: z.string().optional(),
    /**
     * Policy rule ids that must fail in this variant, on every seed. Empty for a shortcut no rule forbids but the
     * success terms must refuse (an answer that does not do what was asked): the trap must still not pass, and earn
     * less than the oracle.
     */
    catches: z.array(z.string().min(1)),
    steps: z.array(planStepSchema).min(1).optional(),
    from_oracle: edit.optional(),
  })
  .strict()
  .refine((t) => (t.steps === undefined) !== (t.from_oracle === undefined), {
    message: 'a trap gives its whole plan (steps) or changes to the oracle (from_oracle), one of them',
  });

export type PlanStep = z.infer<typeof planStepSchema>;
export type OraclePlan = z.infer<typeof oraclePlanSchema>;
export type Trap = z.infer<typeof trapSchema>;
