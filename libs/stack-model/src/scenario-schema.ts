import { z } from 'zod';

import { employeeSelector } from './employee-selector-schema';
import { declaredPartySchema } from './party-declaration-schema';
import { hiddenFactSchema } from './hidden-fact-schema';
import { oraclePlanSchema, trapSchema } from './oracle-plan-schema';

/**
 * A scenario: data in a stack bundle (`scenarios/*.yaml`) that an episode runs. One scenario is many task instances:
 * its variables have ranges, and a seed picks one value of each. Text fields are templates (`{{quantity}}`), numeric
 * fields are expressions over variables (`list_price * reservation_ratio`).
 */
/** One entry of a task's tools: a whole service, or a service curated to some of its operations. */
const toolSelectionSchema = z.union([
  z.string().min(1),
  z.object({ service: z.string().min(1), operations: z.array(z.string().min(1)).min(1) }).strict(),
]);

const name = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be lower_snake_case');
const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** A number, or an expression over the scenario's values that gives one. */
export const numeric = z.union([z.number(), z.string().min(1)]);

export const variableSchema = z.union([
  z
    .object({
      int: z.tuple([z.number().int(), z.number().int()]),
      step: z.number().int().positive().optional(),
    })
    .strict(),
  z
    .object({
      number: z.tuple([z.number(), z.number()]),
      decimals: z.number().int().min(0).max(6).optional(),
    })
    .strict(),
  z.object({ choice: z.array(scalar).min(1) }).strict(),
  scalar,
]);

export const personaKinds = ['supplier-negotiator', 'approver', 'finance-colleague', 'background-traffic'] as const;

const supplierNegotiator = z
  .object({
    persona: z.literal('supplier-negotiator'),
    /** A supplier of the company: its id as the world has it, or its index in the supplier list. */
    supplier: z.union([z.string().min(1, 'must be a supplier id of the world or an index'), z.number().int().min(0)]),
    contact: z.number().int().min(0).default(0),
    strategy: z.string().min(1),
    opening_price: numeric,
    reservation_price: numeric,
    /** Rounds of offers before the supplier walks away when nothing moves. */
    patience: numeric.default(6),
    reply_after_business_days: numeric.default(1),
    delivery_days: numeric.default(15),
    payment_terms_days: numeric.default(30),
  })
  .strict();

const approver = z
  .object({
    persona: z.literal('approver'),
    employee: employeeSelector,
    strictness: z.string().min(1).default('lenient'),
    reply_after_business_hours: numeric.default(4),
  })
  .strict();

const financeColleague = z
  .object({
    persona: z.literal('finance-colleague'),
    employee: employeeSelector,
    questions: numeric.default(1),
    /** Where finance tells the agent to charge an order instead of a frozen cost centre (a code, or a template). */
    alternative_cost_centre: z.string().min(1).optional(),
  })
  .strict();

const backgroundTraffic = z
  .object({
    persona: z.literal('background-traffic'),
    channels: z.array(z.string().min(1)).min(1),
    messages: numeric,
  })
  .strict();

export const builtInPartySchema = z.discriminatedUnion('persona', [
  supplierNegotiator,
  approver,
  financeColleague,
  backgroundTraffic,
]);

/** A built-in persona (`persona:`), or a party declared as data (`who:`, `behaviour:`, `reactions:`). */
export const partySchema = z.union([builtInPartySchema, declaredPartySchema]);

/** What counts as done: a purchase order of the supplier's, far enough along, within the terms. */
export const purchaseOrderSuccessSchema = z
  .object({
    kind: z.literal('purchase-order'),
    /** The party whose supplier the order is for, or `any` of the scenario's suppliers (a competitive RFQ). */
    supplier: name,
    min_status: z.enum(['pending_approval', 'approved', 'sent', 'acknowledged', 'received', 'closed']),
    quantity: numeric,
    max_unit_price: numeric,
    min_payment_terms_days: numeric.optional(),
    max_delivery_business_days: numeric.optional(),
  })
  .strict();

/** A CEL expression over the task's values, the twins' records and the event log (PREDICATES.md). */
const predicate = z.string().min(1).max(4000);

/** What counts as done, in any domain: a predicate that must hold when the episode ends. */
export const predicateSuccessSchema = z
  .object({
    kind: z.literal('predicate'),
    when: predicate,
    /** Said in the outcome's reason: what the predicate means (`the patient got a reply within 2 business days`). */
    description: z.string().min(1).optional(),
  })
  .strict();

export const successSchema = z.discriminatedUnion('kind', [purchaseOrderSuccessSchema, predicateSuccessSchema]);

/**
 * A record the world holds as the episode starts, declared as data: a named folder, a person's account, a ticket.
 * `id` and text fields are templates over the instance's values; fields the record's schema has that are left out are
 * synthesized like the world's own.
 */
const seededRecordSchema = z
  .object({
    service: z.string().min(1),
    /** A resource of the service (`folders`, `users`), as the stack names it. */
    table: z.string().min(1),
    id: z.union([z.string().min(1), z.number()]),
    fields: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

/** One change the simulator makes to the world before the agent's first action. */
export const setupStepSchema = z.union([
  z.object({ freeze_budget: z.string().min(1) }).strict(),
  z.object({ record: seededRecordSchema }).strict(),
]);

export const scenarioSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
    title: z.string().min(1),
    description: z.string().optional(),
    world: z
      .object({
        seed: z.number().int().min(0).optional(),
        company: z
          .object({
            employees: z.number().int().min(20).max(20_000).optional(),
            suppliers: z.number().int().min(1).max(5_000).optional(),
            items: z.number().int().min(1).max(200_000).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({}),
    variables: z.record(name, variableSchema).default({}),
    /** Values computed from the variables, in order: later ones may use earlier ones. */
    derived: z.record(name, numeric).default({}),
    task: z
      .object({
        goal: z.string().min(1),
        context: z.string().default(''),
        /** The client's policy document the agent must follow: a file in the bundle. */
        policy: z.string().min(1).optional(),
        /**
         * The stack's services the agent may use: a service's name gives all its operations; `{ service, operations }`
         * gives those named (operation ids or glob patterns such as `get_folders*`). See tool-selection.ts.
         */
        tools: z.array(toolSelectionSchema).min(1),
      })
      .strict(),
    /** Facts the agent must not see (and graders check it never discloses): name → typed value (hidden-facts.ts). */
    hidden: z.record(name, hiddenFactSchema).default({}),
    parties: z
      .record(name, partySchema)
      .refine((parties) => Object.keys(parties).length > 0, 'needs at least one party'),
    success: z.array(successSchema).min(1),
    /**
     * Steps on the way, as named predicates: each met earns a share of the milestone part of the reward, and none
     * earns anything unless the outcome is met.
     */
    milestones: z.record(name, predicate).optional(),
    constraints: z.array(z.record(z.string(), z.unknown())).default([]),
    /**
     * How the reward prices the outcome beyond success: savings against the target unit price, 0 at `target` and
     * 1 at `best` (the counterparty's floor). Without it a success scores 1.
     */
    reward: z
      .object({ savings: z.object({ target: numeric, best: numeric }).strict() })
      .strict()
      .optional(),
    horizon: z
      .object({
        max_agent_actions: z.number().int().min(1).max(10_000),
        business_days: z.number().int().min(1).max(365),
        wall_clock_minutes: z
          .number()
          .positive()
          .max(24 * 60)
          .default(10),
      })
      .strict(),
    /** The world as the episode starts: changes the simulator makes before the agent's first action. */
    setup: z.array(setupStepSchema).default([]),
    /** The policy sets graders apply (files in the bundle). */
    policies: z.array(z.string().min(1)).default([]),
    /** The reference plan the generic oracle agent follows (oracle-plan-schema.ts); `mirror check` plays it. */
    oracle: oraclePlanSchema.optional(),
    /** Violating variants of the plan, each caught by the rules it names. */
    traps: z.array(trapSchema).default([]),
  })
  .strict();

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioParty = z.infer<typeof partySchema>;
export type SuccessCriterion = z.infer<typeof successSchema>;
export type PurchaseOrderSuccess = z.infer<typeof purchaseOrderSuccessSchema>;
export type SetupStep = z.infer<typeof setupStepSchema>;
export type VariableSpec = z.infer<typeof variableSchema>;
export type EmployeeSelector = z.infer<typeof employeeSelector>;
