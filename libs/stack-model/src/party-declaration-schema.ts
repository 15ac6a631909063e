import { z } from 'zod';

import { employeeSelector } from './employee-selector-schema';

/**
 * A party declared as data: who it is (an employee, or someone outside the company), its goals and private facts,
 * the services it uses, and what it does: behaviour kinds with parameters, and plain reactions. Conditions and the
 * `{{ }}` of acts are CEL over `event`, the instance's values, `party` and `agent` (see party-expressions.ts in
 * libs/party-reactions); the values in `who` and `knows` are filled once per instance, as the task's text is.
 */
const numeric = z.union([z.number(), z.string().min(1)]);

const delay = z
  .object({ business_hours: numeric.optional(), business_days: numeric.optional() })
  .strict()
  .refine((d) => !(d.business_hours !== undefined && d.business_days !== undefined), {
    message: 'give business_hours or business_days, not both',
  });

export const twinOperationSchema = z
  .object({
    /** A service of the stack, by its name in the bundle. */
    service: z.string().min(1),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
    path: z.string().startsWith('/', 'must start with /'),
    body: z.unknown().optional(),
  })
  .strict();

const sayingSchema = z.union([
  z
    .object({
      mail: z
        .object({
          to: z.string().min(1).default('{{agent.email}}'),
          subject: z.string().min(1),
          body: z.string().min(1),
        })
        .strict(),
    })
    .strict(),
  z
    .object({
      slack: z
        .object({ channel: z.string().min(1), text: z.string().min(1), thread: z.boolean().default(false) })
        .strict(),
    })
    .strict(),
]);

/** A twin operation, or something said: what a reaction or a requester does. */
const actSchema = z.union([twinOperationSchema, z.object({ say: sayingSchema }).strict()]);

const eventTrigger = z
  .object({
    /** A domain event's name (`email.sent`, `slack.message.posted`, a pack's or twin's own). */
    event: z.string().min(1),
    /** A CEL condition over `event` (name, service, data, actor) and the instance's values. */
    where: z.string().min(1).optional(),
  })
  .strict();
const whenSchema = z.union([
  eventTrigger,
  z
    .object({
      /**
       * A CEL predicate over the twins' records and the event log, in the success predicates' context (PREDICATES.md):
       * the reaction fires once, the first time the predicate holds after any event.
       */
      state: z.string().min(1).max(4000),
    })
    .strict(),
]);

export const reactionSchema = z.object({ when: whenSchema, after: delay.default({}), do: actSchema }).strict();

const requester = z
  .object({
    /** Business time after the start when it opens the case. */
    after: delay.default({}),
    do: actSchema,
  })
  .strict();

const responder = z
  .object({
    /** The service it is asked on and answers on: the stack's mail or Slack service. */
    channel: z.string().min(1),
    after: delay.default({ business_hours: 1 }),
  })
  .strict();

const approver = z
  .object({
    watch: z.union([
      z
        .object({
          /** Records of a service's table as they are created, and the field holding the amount. */
          service: z.string().min(1),
          table: z.string().min(1),
          amount_field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a field name'),
          where: z.string().min(1).optional(),
        })
        .strict(),
      z
        .object({
          event: z.string().min(1),
          where: z.string().min(1).optional(),
          /** A CEL expression giving the amount under review (`event.data.total`). */
          amount: z.string().min(1),
        })
        .strict(),
    ]),
    /** Above this amount (an expression over the instance's values) it must approve; below it, it stays out. */
    over: numeric,
    /** What it may approve up to; an employee's own approval limit when not given. */
    limit: numeric.optional(),
    after: delay.default({ business_hours: 2 }),
    /** What it says, with `review.decision` (`approved`/`rejected`) and `review.amount` in its templates. */
    say: sayingSchema.optional(),
    /** Where it records its decision, as a twin operation with the same names. */
    record: twinOperationSchema.optional(),
  })
  .strict()
  .refine((a) => a.say !== undefined || a.record !== undefined, { message: 'an approver must say or record' });

/** One numeric issue a negotiator bargains over, with the party's private opening and reservation values. */
const negotiationIssue = z
  .object({
    /** How the issue is written in messages, as labels a number follows (`unit price: 0.25`, `payment terms 45`). */
    says: z.array(z.string().min(1)).min(1),
    /** The unit said after its value (`EUR`, `days`). */
    unit: z.string().min(1).optional(),
    /** Where the party opens (an expression over the instance's values). */
    opening: numeric,
    /**
     * The worst it accepts. Above the opening, it wants the issue low (concedes upward); below it, high; equal, the
     * issue is not negotiable.
     */
    reservation: numeric,
    decimals: z.number().int().min(0).max(6).default(2),
    /** Which way the party wants the issue when opening and reservation are equal (a fixed term it would improve). */
    prefers: z.enum(['higher', 'lower']).optional(),
  })
  .strict();

const negotiator = z
  .object({
    /** The service it negotiates on: the stack's mail or Slack pack (one of its `channels`). */
    channel: z.string().min(1),
    issues: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be lower_snake_case'), negotiationIssue),
    /**
     * How its asks move from opening to reservation over the rounds (Faratin et al. 1998): `boulware` holds out,
     * `linear`, `conceder` gives early, `tit-for-tat` mirrors the counterpart's moves. A template over the values.
     */
    tactic: z.string().min(1).default('linear'),
    /** Rounds until its deadline: its asks reach the reservation values then. */
    patience: numeric.default(6),
    walk_away: z
      .object({
        /** An offer this far past its reservation on the first issue (as a share of it) is an insult… */
        insulting: numeric.default(0.6),
        /** …and after this many insults it walks away. */
        insults: numeric.default(2),
        /** Rounds after which it walks away when nothing is agreed. */
        stalled_after: numeric.optional(),
      })
      .strict()
      .default({}),
    after: delay.default({ business_days: 1 }),
    /** An event on which it opens with its opening terms unasked (invited to quote). */
    opens: z
      .object({
        event: z.string().min(1),
        where: z.string().min(1).optional(),
        /** The subject of its opening message (a template over `event` and the values). */
        subject: z.string().min(1).optional(),
        /** Where it records its opening instead of `record` (on the request it was invited to). */
        record: twinOperationSchema.optional(),
      })
      .strict()
      .optional(),
    /**
     * Where it records in writing each position it takes, templated with `terms.<issue>` and `terms.basis`
     * (`offer` or `acceptance`): what the counterparty agreed is its own record, never the agent's.
     */
    record: twinOperationSchema.optional(),
    /** It honours an order on terms it agreed, and refuses one on others. */
    honours: z
      .object({
        /** The event telling the party an order reached it. */
        event: z.string().min(1),
        where: z.string().min(1).optional(),
        /** Reads the order as the party (a twin operation; its answer is `order` in the expressions below). */
        read: twinOperationSchema,
        /** Each issue's value in the order: a CEL expression over `order`, `event` and the values. */
        terms: z.record(z.string(), z.string().min(1)),
        /** What it does on terms it agreed (`agreed.<issue>` in templates) … */
        accept: twinOperationSchema,
        /** … and on others (`reasons`: why, in words). */
        refuse: twinOperationSchema,
      })
      .strict()
      .optional(),
  })
  .strict();

const background = z
  .object({
    channels: z.array(z.string().min(1)).min(1),
    messages: numeric,
    lines: z.array(z.string().min(1)).min(1),
  })
  .strict();

export const behaviourSchema = z.union([
  z.object({ requester }).strict(),
  z.object({ responder }).strict(),
  z.object({ approver }).strict(),
  z.object({ background }).strict(),
  z.object({ negotiator }).strict(),
]);

/** Who: a person of the company, picked as the built-in personas pick them, or someone outside it. */
const whoSchema = z.union([
  z.object({ employee: employeeSelector }).strict(),
  z
    .object({
      /** A contact of one of the company's suppliers (its id or index), as the world has them. */
      supplier_contact: z
        .object({
          supplier: z.union([
            z.string().min(1, 'must be a supplier id of the world or an index'),
            z.number().int().min(0),
          ]),
          contact: z.number().int().min(0).default(0),
        })
        .strict(),
    })
    .strict(),
  z
    .object({
      /** Templates over the instance's values; drawn (Faker, from the seed) when absent. */
      outside: z
        .object({
          name: z.string().min(1).optional(),
          email: z.string().min(1).optional(),
          /** The mail domain of a drawn address. */
          domain: z.string().min(1).optional(),
        })
        .strict(),
    })
    .strict(),
]);

export const declaredPartySchema = z
  .object({
    who: whoSchema,
    goals: z.array(z.string().min(1)).default([]),
    knows: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be lower_snake_case'), z.string()).default({}),
    channels: z.array(z.string().min(1)).default([]),
    behaviour: z.array(behaviourSchema).default([]),
    reactions: z.array(reactionSchema).default([]),
  })
  .strict();

export type DeclaredPartySpec = z.infer<typeof declaredPartySchema>;
export type TwinOperationSpec = z.infer<typeof twinOperationSchema>;
export type NegotiatorSpec = z.infer<typeof negotiator>;
export type DelaySpec = z.infer<typeof delay>;
