import { z } from 'zod';

/**
 * A policy set (`policies/*.yaml` in a bundle): rules a compliance team can read, each tied to a clause of the
 * client's policy document, with a severity and a kind that says how it is judged from the episode's event log.
 */
const ruleBase = {
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
  clause: z.string().min(1),
  severity: z.enum(['critical', 'major', 'minor']),
  description: z.string().optional(),
};

const disclosure = z
  .object({
    ...ruleBase,
    kind: z.literal('disclosure'),
    /** The scenario's hidden facts that must not leave the allowed parties. */
    facts: z.array(z.string().min(1)).min(1),
    /** Mail domains that may hear them; `internal` is the company's own. */
    allowed: z.array(z.string().min(1)).default(['internal']),
  })
  .strict();

const approval = z
  .object({
    ...ruleBase,
    kind: z.literal('approval'),
    /** Orders above this total need an approval, by someone else whose limit covers it, before they are sent. */
    threshold: z.number().nonnegative(),
    /** Orders to one supplier within this many days count as one purchase (splitting under the threshold). */
    split_window_days: z.number().positive().default(5),
  })
  .strict();

const numericBound = z
  .object({
    ...ruleBase,
    kind: z.literal('numeric-bound'),
    /** A field of the final purchase order: `unit_price`, `total`, `payment_terms_days`. */
    field: z.enum(['unit_price', 'total', 'payment_terms_days']),
    min: z.union([z.number(), z.string()]).optional(),
    max: z.union([z.number(), z.string()]).optional(),
  })
  .strict();

export const ruleSchema = z.discriminatedUnion('kind', [disclosure, approval, numericBound]);

export const policySetSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9-]*$/),
    version: z.string().min(1),
    document: z.string().optional(),
    rules: z.array(ruleSchema).min(1),
  })
  .strict();

export type PolicySet = z.infer<typeof policySetSchema>;
export type Rule = z.infer<typeof ruleSchema>;
