import { z } from 'zod';

import { personalDataClasses } from './hidden-fact-schema';
import { rubricItemSchema } from './rubric-item-schema';

/**
 * A policy set (`policies/*.yaml` in a bundle): rules a compliance team can read, each tied to a clause of the
 * client's policy document, with a severity and a kind that says how it is judged from the episode's event log and
 * final twin state. Text values may name the task's values as `{{supplier_id}}`.
 */
const ruleBase = {
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
  clause: z.string().min(1),
  severity: z.enum(['critical', 'major', 'minor']),
  description: z.string().optional(),
};

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** A bound on a field: `{ gt: 200 }`, `{ lte: '{{limit}}' }`, `{ ne: draft }`; numbers compare as numbers. */
const comparison = z
  .object({ gt: scalar, gte: scalar, lt: scalar, lte: scalar, ne: scalar })
  .partial()
  .strict()
  .refine((c) => Object.keys(c).length > 0, 'must bound the field: gt, gte, lt, lte or ne');

/**
 * Field values to match: a value, any of a list, or a comparison. An event field that is a list matches when any
 * element does.
 */
const where = z.record(z.union([scalar, z.array(scalar), comparison]));

/**
 * One person by their mail address, as a template of the task's values (`{{approver_email}}`), or any of a few: "by
 * others" lets any colleague stand in for the one whose word a rule needs.
 */
const personAddress = z
  .string()
  .regex(
    /@|\{\{/,
    "must be agent, others, anyone, or one person's mail address (a template such as {{approver_email}})",
  );

/** Which events a rule is about: by name, by whom (the agent by default, or named people), with field values. */
const eventPattern = z
  .object({
    event: z.string().min(1),
    by: z.union([z.enum(['agent', 'others', 'anyone']), personAddress, z.array(personAddress).min(1)]).default('agent'),
    where: where.optional(),
  })
  .strict();

/**
 * A table of a pack or of a service of the stack, as `<pack or service>.<table>`: `procurement.purchase-orders`,
 * `procurement.rfqs.quotes` (nested), `email.messages`, `helpdesk.tickets`, or `slack.*` for all of its tables.
 */
const tableName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]*\.([a-z][a-z0-9.-]*[a-z0-9]|\*)$/,
    'must be <pack or service>.<table> or <pack or service>.*',
  );

const disclosure = z
  .object({
    ...ruleBase,
    kind: z.literal('disclosure'),
    /** The scenario's hidden facts that must not leave the allowed parties: numbers, money, text, personal data. */
    facts: z.array(z.string().min(1)).default([]),
    /** Every hidden fact of these personal-data classes in the instance, as if named one by one. */
    classes: z.array(z.enum(personalDataClasses)).default([]),
    /**
     * Who may hear them: `internal` (the company's own domain), a mail domain, an address (`{{patient_email}}`: that
     * mailbox only, where a domain is shared by strangers), or `subject`: the party a text or personal-data fact is
     * about (its `subject`), for that fact only (a patient may read their own invoice number).
     */
    allowed: z.array(z.string().min(1)).default(['internal']),
    /** Prices one outside party quoted by mail must not reach another (one supplier's offer told to a rival). */
    competing_quotes: z.boolean().default(false),
  })
  .strict();

/**
 * What an approval rule is about: the agent's records of a table (each version that matches `where`, such as a refund
 * set to `issued`) or events, whose `amount_field` exceeds the threshold.
 */
const approvalAction = z
  .object({
    table: tableName.optional(),
    event: z.string().min(1).optional(),
    where: where.optional(),
    amount_field: z.string().min(1),
    /** The field identifying the action across events (an event's `id` when left out). */
    key_field: z.string().min(1).optional(),
  })
  .strict()
  .refine((a) => (a.table === undefined) !== (a.event === undefined), 'must name either a table or an event');

/**
 * Where an approval is read, always from the approver's own identity (the credentials of the change or post, never a
 * field the agent could write): a change to a record matching `where` (the action's own record, or one whose
 * `ref_field` holds its id), an event, or a message in a chat channel naming the action's id.
 */
const approvalSource = z
  .object({
    table: tableName.optional(),
    event: z.string().min(1).optional(),
    channel: z.string().min(1).optional(),
    where: where.optional(),
    ref_field: z.string().min(1).optional(),
  })
  .strict()
  .refine(
    (s) => [s.table, s.event, s.channel].filter((x) => x !== undefined).length <= 1,
    'must name at most one of table, event, channel',
  );

const approval = z
  .object({
    ...ruleBase,
    kind: z.literal('approval'),
    /**
     * Actions above this amount need an approval (a number, or an expression over the instance's values). Without
     * `on`, the actions are purchase orders sent, approved in the ERP by someone else whose limit covers them.
     */
    threshold: z.union([z.number().nonnegative(), z.string().min(1)]),
    on: approvalAction.optional(),
    /** Where the approval is read; the action's own table (or event) when left out. */
    approval: approvalSource.optional(),
    /** Who may approve: a role or department of the company, a declared party, and/or someone whose limit covers it. */
    approved_by: z
      .object({
        role: z.string().min(1).optional(),
        party: z.string().min(1).optional(),
        limit: z.boolean().optional(),
      })
      .strict()
      .optional(),
    /** The approval must come before the action (default), or at any time in the episode. */
    before: z.boolean().default(true),
    /** Actions sharing this field (a supplier, a patient) within the window count as one (splitting under it). */
    split_by: z.string().min(1).optional(),
    /** Orders to one supplier within this many days count as one purchase (splitting under the threshold). */
    split_window_days: z.number().positive().default(5),
  })
  .strict();

const recipients = z
  .object({
    ...ruleBase,
    kind: z.literal('recipients'),
    /** The agent's mails the rule is about: those whose subject, body or attachments match any of these (regex). */
    mentioning: z.array(z.string().min(1)).optional(),
    /**
     * Domains such mails must never go to: `gmail.com` (that domain), `*.example.org` (its subdomains), or `*`: anyone
     * outside the company, every domain but the company's own.
     */
    forbidden_domains: z
      .array(
        z
          .string()
          .regex(
            /^(\*|(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+)$/,
            'must be a domain (gmail.com), its subdomains (*.example.org), or * for anyone outside the company',
          ),
      )
      .optional(),
    /**
     * Recipients never forbidden, so `*` can mean "anyone outside but the counterparties": a domain, or an address
     * (`'{{supplier_email}}'`) standing for its domain (the counterparty's company). A list of forbidden providers is
     * never complete; a list of the task's counterparties is.
     */
    except: z.array(z.string().min(1)).optional(),
    /** Addresses that must be in To or Cc of such mails when they go outside; `@internal` is the company's domain. */
    require_cc: z.array(z.string().min(1)).optional(),
  })
  .strict();

const channels = z
  .object({
    ...ruleBase,
    kind: z.literal('channels'),
    /** Slack channels (by name) where the agent's messages matching `mentioning` may be posted. */
    allowed: z.array(z.string().min(1)),
    /** Direct messages count as allowed. */
    direct_messages: z.boolean().default(true),
    mentioning: z.array(z.string().min(1)).optional(),
  })
  .strict();

const numericBound = z
  .object({
    ...ruleBase,
    kind: z.literal('numeric-bound'),
    /** A field of every purchase order the agent submitted: `unit_price` (its highest line), `total`, `payment_terms_days`. */
    field: z.enum(['unit_price', 'total', 'payment_terms_days']),
    min: z.union([z.number(), z.string()]).optional(),
    max: z.union([z.number(), z.string()]).optional(),
  })
  .strict();

const sequence = z
  .object({
    ...ruleBase,
    kind: z.literal('sequence'),
    /** Every `then` event needs a `first` event before it (with the same `same` field, when given)… */
    first: eventPattern,
    then: eventPattern,
    same: z.string().optional(),
    /** …at most this many business days before it. */
    within_business_days: z.number().positive().optional(),
  })
  .strict();

/**
 * An obligation to answer: every `request` event needs a `reply` event after it within the business days given,
 * the reply's `match.reply` field holding the request's `match.request` value (the patient who wrote is the one
 * answered). The episode is over when it is graded: a request never answered fails.
 */
const response = z
  .object({
    ...ruleBase,
    kind: z.literal('response'),
    request: eventPattern,
    reply: eventPattern,
    /** Which reply answers which request: `{ request: from, reply: to }` (a list field holds the value). */
    match: z
      .object({ request: z.string().min(1), reply: z.string().min(1) })
      .strict()
      .optional(),
    within_business_days: z.number().positive(),
  })
  .strict();

const rate = z
  .object({
    ...ruleBase,
    kind: z.literal('rate'),
    events: eventPattern,
    /** At most this many per calendar day of the episode's clock… */
    max_per_day: z.number().int().positive(),
    /** …per recipient domain (mail) or per value of this field. */
    per: z.string().optional(),
  })
  .strict();

const state = z
  .object({
    ...ruleBase,
    kind: z.literal('state'),
    /** `present`: a record like this must exist at the end (a milestone); `absent`: it must not (a minefield). */
    expect: z.enum(['present', 'absent']),
    table: tableName,
    where,
    /**
     * Which records count: `any` in the final state (the default), or only those `changed` in the episode (by anyone):
     * a client's table seeded with records that already match would otherwise decide the rule before the agent acts.
     */
    records: z.enum(['any', 'changed']).default('any'),
    /** Milestones earn partial credit in the reward; a missing one is not a violation. */
    milestone: z.boolean().default(false),
  })
  .strict();

const collateral = z
  .object({
    ...ruleBase,
    kind: z.literal('collateral'),
    /** What the agent may change: a table, and whether only records it created in the episode (`own`). */
    may_change: z.array(z.object({ table: tableName, records: z.enum(['own', 'any']).default('any') }).strict()),
  })
  .strict();

const forbiddenEvent = z
  .object({
    ...ruleBase,
    kind: z.literal('forbidden-event'),
    events: eventPattern,
  })
  .strict();

const identity = z
  .object({
    ...ruleBase,
    kind: z.literal('identity'),
  })
  .strict();

export const ruleSchema = z.discriminatedUnion('kind', [
  disclosure,
  approval,
  recipients,
  channels,
  numericBound,
  sequence,
  response,
  rate,
  state,
  collateral,
  forbiddenEvent,
  identity,
]);

export const policySetSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9-]*$/),
    version: z.string().min(1),
    document: z.string().optional(),
    rules: z.array(ruleSchema).min(1),
    /** Questions for the optional rubric judge: advisory, never part of `passed` or the reward. */
    rubric: z.array(rubricItemSchema).optional(),
  })
  .strict()
  .superRefine((set, context) =>
    set.rules.forEach((rule, index) => {
      if (
        rule.kind === 'disclosure' &&
        rule.facts.length === 0 &&
        rule.classes.length === 0 &&
        !rule.competing_quotes
      ) {
        context.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['rules', index, 'facts'],
          message: 'names no facts and does not guard competing quotes: it could never fail',
        });
      }
      if (rule.kind === 'approval' && rule.on === undefined && (rule.approval || rule.approved_by || rule.split_by)) {
        context.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['rules', index, 'on'],
          message: 'says how actions are approved but not which actions (on: table or event, amount_field)',
        });
      }
      if (rule.kind === 'approval' && rule.on?.event !== undefined && rule.approval === undefined) {
        context.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['rules', index, 'approval'],
          message: 'actions read from events need an approval source: a table, an event or a channel',
        });
      }
      if (rule.kind === 'approval' && rule.on !== undefined && !rule.approved_by) {
        context.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['rules', index, 'approved_by'],
          message: 'must say who may approve (approved_by: role, party or limit)',
        });
      }
      if (
        rule.kind === 'approval' &&
        rule.approved_by &&
        !rule.approved_by.role &&
        !rule.approved_by.party &&
        !rule.approved_by.limit
      ) {
        context.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['rules', index, 'approved_by'],
          message: 'names no role, party or limit: anyone but the agent could approve',
        });
      }
      if (rule.kind === 'recipients' && !rule.forbidden_domains?.length && !rule.require_cc?.length) {
        context.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['rules', index],
          message: 'forbids no domain and requires no copy: it could never fail',
        });
      }
    }),
  );

export type PolicySet = z.infer<typeof policySetSchema>;
export type Rule = z.infer<typeof ruleSchema>;
export type RuleOf<K extends Rule['kind']> = Extract<Rule, { kind: K }>;
export type EventPattern = z.infer<typeof eventPattern>;
export type Where = z.infer<typeof where>;
export type Comparison = z.infer<typeof comparison>;
