import { Company, Employee, hashSeed } from '@libs/synthetic-data';
import type { DeclaredParty } from '@libs/party-reactions';
import { EmployeeSelector, Scenario, ScenarioParty, toolServices } from '@libs/stack-model';

import { HiddenFact, hiddenFactValue, resolveHiddenFact } from './hidden-facts';
import { resolveDeclaredParty } from './party-declaration';
import { keyedSeed, worldSeedOf } from './instance-key';
import { evaluate, fill, sample, Values } from './scenario-values';

export const negotiationStrategies = ['boulware', 'linear', 'conceder', 'tit-for-tat'] as const;
export type NegotiationStrategy = (typeof negotiationStrategies)[number];
export const strictnessLevels = ['lenient', 'strict'] as const;

/** A problem found while making an instance, with the JSON pointer of the scenario field it comes from. */
export class InstanceError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

export type ResolvedParty =
  | {
      persona: 'supplier-negotiator';
      supplierId: string;
      supplierName: string;
      contactId: string;
      contactName: string;
      contactEmail: string;
      strategy: NegotiationStrategy;
      openingPrice: number;
      reservationPrice: number;
      patience: number;
      replyAfterBusinessDays: number;
      deliveryDays: number;
      paymentTermsDays: number;
    }
  | {
      persona: 'approver';
      employeeId: string;
      name: string;
      email: string;
      approvalLimit: number;
      strictness: 'lenient' | 'strict';
      replyAfterBusinessHours: number;
    }
  | {
      persona: 'finance-colleague';
      employeeId: string;
      name: string;
      email: string;
      questions: number;
      alternativeCostCentre?: string;
    }
  | { persona: 'background-traffic'; channels: string[]; messages: number }
  | DeclaredParty;

/** Success as a purchase order of the scenario's suppliers, with its terms (`kind` absent in older histories). */
export interface PurchaseOrderCriterion {
  kind?: 'purchase-order';
  /** The supplier parties an order may go to: one, or all of them for `any`. */
  supplierParties: string[];
  supplierIds: string[];
  minStatus: string;
  quantity: number;
  maxUnitPrice: number;
  minPaymentTermsDays?: number;
  maxDeliveryBusinessDays?: number;
}

/** Success as a predicate (PREDICATES.md), judged against the twins' records and the event log at the end. */
export interface PredicateCriterion {
  kind: 'predicate';
  when: string;
  description?: string;
}

export type ResolvedSuccess = PurchaseOrderCriterion | PredicateCriterion;

/**
 * The supplier a party speaks for and its user there: a built-in supplier negotiator, or a declared party who is a
 * supplier's contact. Undefined for anyone else.
 */
export const supplierOf = (party: ResolvedParty | undefined): { supplierId: string; contactId: string } | undefined =>
  party?.persona === 'supplier-negotiator'
    ? { supplierId: party.supplierId, contactId: party.contactId }
    : party?.persona === 'declared' && party.organisation && party.principal
      ? { supplierId: party.organisation.id, contactId: party.principal }
      : undefined;

/** Whether a criterion is a purchase order: those written before predicates existed carry no kind. */
export const isPurchaseOrderCriterion = (criterion: ResolvedSuccess): criterion is PurchaseOrderCriterion =>
  criterion.kind !== 'predicate';

/** One task of a scenario: every variable picked by the seed, every reference resolved against the company. */
export interface TaskInstance {
  scenarioId: string;
  seed: number;
  /** The world's seed: the scenario's own when it fixes one, else the instance seed. */
  worldSeed: number;
  /** The company's sizes, so anyone can rebuild the same company from `worldSeed`. */
  companySizes: { employees?: number; suppliers?: number; items?: number };
  /** What the bundle declares of the company, the third input to rebuilding it. */
  companyDeclaration: Company['declaration'];
  values: Values;
  brief: { goal: string; context: string; policyFile?: string; tools: string[] };
  /** The numeric hidden facts (numbers, and money by its amount): what number-disclosure rules look for. */
  hidden: Record<string, number>;
  /** Every hidden fact with its class (text, dates, personal data too); absent in histories from before them. */
  facts?: Record<string, HiddenFact>;
  parties: Record<string, ResolvedParty>;
  success: ResolvedSuccess[];
  /** Named milestone predicates (absent in histories from before them). */
  milestones?: Record<string, string>;
  horizon: { maxAgentActions: number; businessDays: number; wallClockMinutes: number };
  policies: string[];
  setup: SetupStepInstance[];
}

/** A setup step for an instance: a budget to freeze, or a record to put in the world with its templates filled. */
export interface SetupStepInstance {
  freezeBudget?: string;
  record?: { service: string; table: string; id: string; fields: Record<string, unknown> };
}

/** Every text in a nested value filled as a template; numbers, booleans and nulls stay as they are. */
const fillDeep = (value: unknown, fillText: (text: string, pointer: string) => string, pointer = ''): unknown => {
  if (typeof value === 'string') {
    return fillText(value, pointer);
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => fillDeep(item, fillText, `${pointer}/${index}`));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, fillDeep(item, fillText, `${pointer}/${key}`)]),
    );
  }
  return value;
};

const pick = <T>(items: T[], seed: number, ...parts: (string | number)[]): T =>
  items[hashSeed(seed, ...parts) % items.length];

const employeeFor = (
  company: Company,
  selector: EmployeeSelector,
  seed: number,
  party: string,
  pointer: string,
  values: Values,
): Employee => {
  if (selector === 'agent') {
    return company.agent;
  }
  if (typeof selector === 'string') {
    const found = company.employees.find((e) => e.id === selector);
    if (!found) {
      throw new InstanceError(pointer, `no employee ${selector} in a company of ${company.employees.length}`);
    }
    return found;
  }
  const minLimit =
    selector.min_approval_limit === undefined
      ? undefined
      : number(selector.min_approval_limit, values, `${pointer}/min_approval_limit`);
  const matches = company.employees.filter(
    (e) =>
      e.role === selector.role &&
      (selector.department === undefined || e.department === selector.department) &&
      (selector.title === undefined || e.title === selector.title) &&
      (minLimit === undefined || e.approvalLimit >= minLimit),
  );
  if (matches.length === 0) {
    throw new InstanceError(
      pointer,
      `no employee is a ${selector.role}${selector.department ? ` in ${selector.department}` : ''}${
        minLimit === undefined ? '' : ` with an approval limit of at least ${minLimit}`
      }`,
    );
  }
  return pick(matches, seed, 'party', party);
};

const oneOf = <T extends string>(value: string, allowed: readonly T[], pointer: string, what: string): T => {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new InstanceError(pointer, `unknown ${what} "${value}"; use one of ${allowed.join(', ')}`);
  }
  return value as T;
};

const number = (expression: number | string, values: Values, pointer: string): number => {
  try {
    return evaluate(expression, values);
  } catch (error) {
    throw new InstanceError(pointer, (error as Error).message);
  }
};

const resolveParty = (
  company: Company,
  name: string,
  party: ScenarioParty,
  values: Values,
  seed: number,
  horizonBusinessDays: number,
): ResolvedParty => {
  const at = (field: string) => `/parties/${name}/${field}`;
  if (!('persona' in party)) {
    return resolveDeclaredParty(name, party, {
      seed,
      horizonBusinessDays,
      employee: (selector, pointer) => employeeFor(company, selector, seed, name, pointer, values),
      supplierContact: (reference, index, pointer) => {
        const supplier =
          typeof reference === 'number'
            ? company.suppliers[reference]
            : company.suppliers.find((s) => s.id === reference);
        if (!supplier) {
          throw new InstanceError(`${pointer}/supplier`, `no supplier ${reference} among ${company.suppliers.length}`);
        }
        const contact = supplier.contacts[index];
        if (!contact) {
          throw new InstanceError(`${pointer}/contact`, `${supplier.id} has ${supplier.contacts.length} contacts`);
        }
        return {
          id: contact.id,
          name: contact.name,
          email: contact.email,
          organisation: { id: supplier.id, name: supplier.name },
        };
      },
      refuse: (pointer, message) => {
        throw new InstanceError(pointer, message);
      },
      number: (expression, pointer) => number(expression, values, pointer),
      fill: (text, pointer) => {
        try {
          return fill(text, values);
        } catch (error) {
          throw new InstanceError(pointer, (error as Error).message);
        }
      },
    });
  }
  switch (party.persona) {
    case 'supplier-negotiator': {
      const supplier =
        typeof party.supplier === 'number'
          ? company.suppliers[party.supplier]
          : company.suppliers.find((s) => s.id === party.supplier);
      if (!supplier) {
        throw new InstanceError(at('supplier'), `no supplier ${party.supplier} among ${company.suppliers.length}`);
      }
      const contact = supplier.contacts[party.contact];
      if (!contact) {
        throw new InstanceError(at('contact'), `${supplier.id} has ${supplier.contacts.length} contacts`);
      }
      const openingPrice = number(party.opening_price, values, at('opening_price'));
      const reservationPrice = number(party.reservation_price, values, at('reservation_price'));
      if (reservationPrice > openingPrice) {
        throw new InstanceError(
          at('reservation_price'),
          `the reservation price (${reservationPrice}) is above the opening price (${openingPrice})`,
        );
      }
      return {
        persona: 'supplier-negotiator',
        supplierId: supplier.id,
        supplierName: supplier.name,
        contactId: contact.id,
        contactName: contact.name,
        contactEmail: contact.email,
        strategy: oneOf(fill(party.strategy, values), negotiationStrategies, at('strategy'), 'negotiation strategy'),
        openingPrice,
        reservationPrice,
        patience: number(party.patience, values, at('patience')),
        replyAfterBusinessDays: number(party.reply_after_business_days, values, at('reply_after_business_days')),
        deliveryDays: number(party.delivery_days, values, at('delivery_days')),
        paymentTermsDays: number(party.payment_terms_days, values, at('payment_terms_days')),
      };
    }
    case 'approver': {
      const employee = employeeFor(company, party.employee, seed, name, at('employee'), values);
      return {
        persona: 'approver',
        employeeId: employee.id,
        name: employee.name,
        email: employee.email,
        approvalLimit: employee.approvalLimit,
        strictness: oneOf(fill(party.strictness, values), strictnessLevels, at('strictness'), 'strictness'),
        replyAfterBusinessHours: number(party.reply_after_business_hours, values, at('reply_after_business_hours')),
      };
    }
    case 'finance-colleague': {
      const employee = employeeFor(company, party.employee, seed, name, at('employee'), values);
      return {
        persona: 'finance-colleague',
        employeeId: employee.id,
        name: employee.name,
        email: employee.email,
        questions: number(party.questions, values, at('questions')),
        ...(party.alternative_cost_centre
          ? { alternativeCostCentre: fill(party.alternative_cost_centre, values) }
          : {}),
      };
    }
    case 'background-traffic':
      return {
        persona: 'background-traffic',
        channels: party.channels,
        messages: Math.max(0, Math.round(number(party.messages, values, at('messages')))),
      };
  }
};

/** Values a template may name about a party (`{{supplier_name}}`, `{{approver_email}}`). */
const partyValues = (name: string, party: ResolvedParty): Values => {
  switch (party.persona) {
    case 'supplier-negotiator':
      return {
        [`${name}_name`]: party.supplierName,
        [`${name}_contact`]: party.contactName,
        [`${name}_email`]: party.contactEmail,
        [`${name}_id`]: party.supplierId,
      };
    case 'declared':
      return {
        [`${name}_name`]: party.name,
        [`${name}_email`]: party.email,
        // An employee's id is the `actor` of what they do: a predicate names the one person whose act counts by it.
        ...(party.employeeId ? { [`${name}_id`]: party.employeeId } : {}),
        ...(party.organisation
          ? { [`${name}_id`]: party.organisation.id, [`${name}_organisation`]: party.organisation.name }
          : {}),
      };
    case 'approver':
    case 'finance-colleague':
      return { [`${name}_name`]: party.name, [`${name}_email`]: party.email };
    default:
      return {};
  }
};

/** The names a scenario's templates and expressions may use, beyond its variables, derived and hidden values. */
export const partyValueNames = (scenario: Scenario): string[] =>
  Object.entries(scenario.parties).flatMap(([name, party]) =>
    !('persona' in party)
      ? [
          `${name}_name`,
          `${name}_email`,
          ...('supplier_contact' in party.who ? [`${name}_id`, `${name}_organisation`] : []),
          ...('employee' in party.who ? [`${name}_id`] : []),
        ]
      : party.persona === 'supplier-negotiator'
        ? [`${name}_name`, `${name}_contact`, `${name}_email`, `${name}_id`]
        : party.persona === 'background-traffic'
          ? []
          : [`${name}_name`, `${name}_email`],
  );

/**
 * The task instance of a scenario for a seed, against the company of its world. Throws an InstanceError, with the
 * pointer of the field at fault, when a value or reference does not work out for this seed.
 */
export const instantiate = (
  scenario: Scenario,
  seed: number,
  company: Company,
  /** The installation's instance key (instance-key.ts); omitted only where no episode runs (checks of a scenario). */
  key?: string,
): TaskInstance => {
  const values: Values = {};
  for (const [name, spec] of Object.entries(scenario.variables)) {
    values[name] = sample(name, spec, seed, key ? (s, n) => keyedSeed(key, 'variable', s, n) : undefined);
  }
  for (const [name, expression] of Object.entries(scenario.derived)) {
    values[name] = number(expression, values, `/derived/${name}`);
  }
  const hidden: Record<string, number> = {};
  const facts: Record<string, HiddenFact> = {};
  for (const [name, spec] of Object.entries(scenario.hidden)) {
    const pointer = `/hidden/${name}`;
    try {
      facts[name] = resolveHiddenFact(
        name,
        spec,
        seed,
        (expression) => evaluate(expression, values),
        (text) => fill(text, values),
      );
    } catch (error) {
      throw new InstanceError(pointer, (error as Error).message);
    }
    const fact = facts[name];
    if (fact.type === 'number' || fact.type === 'money') {
      hidden[name] = fact.type === 'number' ? fact.value : fact.amount;
    }
    values[name] = hiddenFactValue(fact);
  }
  const parties: Record<string, ResolvedParty> = {};
  for (const [name, party] of Object.entries(scenario.parties)) {
    parties[name] = resolveParty(company, name, party, values, seed, scenario.horizon.business_days);
    Object.assign(values, partyValues(name, parties[name]));
  }
  const success = scenario.success.map((criterion, index): ResolvedSuccess => {
    if (criterion.kind === 'predicate') {
      return {
        kind: 'predicate',
        when: criterion.when,
        ...(criterion.description ? { description: criterion.description } : {}),
      };
    }
    const at = (field: string) => `/success/${index}/${field}`;
    const named = criterion.supplier === 'any' ? Object.keys(parties) : [criterion.supplier];
    const suppliers = named.filter((n) => supplierOf(parties[n]) !== undefined);
    if (suppliers.length === 0) {
      throw new InstanceError(at('supplier'), `"${criterion.supplier}" is not a party of a supplier`);
    }
    return {
      kind: 'purchase-order',
      supplierParties: suppliers,
      supplierIds: suppliers.map((n) => supplierOf(parties[n])?.supplierId as string),
      minStatus: criterion.min_status,
      quantity: number(criterion.quantity, values, at('quantity')),
      maxUnitPrice: number(criterion.max_unit_price, values, at('max_unit_price')),
      ...(criterion.min_payment_terms_days !== undefined
        ? { minPaymentTermsDays: number(criterion.min_payment_terms_days, values, at('min_payment_terms_days')) }
        : {}),
      ...(criterion.max_delivery_business_days !== undefined
        ? {
            maxDeliveryBusinessDays: number(
              criterion.max_delivery_business_days,
              values,
              at('max_delivery_business_days'),
            ),
          }
        : {}),
    };
  });
  const fillAt = (text: string, pointer: string): string => {
    try {
      return fill(text, values);
    } catch (error) {
      throw new InstanceError(pointer, (error as Error).message);
    }
  };
  return {
    scenarioId: scenario.id,
    seed,
    worldSeed: key ? worldSeedOf(scenario, seed, key) : (scenario.world.seed ?? seed),
    companySizes: scenario.world.company ?? {},
    companyDeclaration: company.declaration,
    values,
    brief: {
      goal: fillAt(scenario.task.goal, '/task/goal'),
      context: fillAt(scenario.task.context, '/task/context'),
      ...(scenario.task.policy ? { policyFile: scenario.task.policy } : {}),
      tools: toolServices(scenario.task.tools),
    },
    hidden,
    facts,
    parties,
    success,
    ...(scenario.milestones ? { milestones: scenario.milestones } : {}),
    horizon: {
      maxAgentActions: scenario.horizon.max_agent_actions,
      businessDays: scenario.horizon.business_days,
      wallClockMinutes: scenario.horizon.wall_clock_minutes,
    },
    policies: scenario.policies,
    setup: scenario.setup.map((step, index): SetupStepInstance => {
      if ('freeze_budget' in step) {
        return { freezeBudget: step.freeze_budget };
      }
      const at = `/setup/${index}/record`;
      const { service, table, id, fields } = step.record;
      return {
        record: {
          service,
          table,
          id: typeof id === 'number' ? String(id) : fillAt(id, `${at}/id`),
          fields: fillDeep(fields, (text, pointer) => fillAt(text, `${at}/fields${pointer}`)) as Record<
            string,
            unknown
          >,
        },
      };
    }),
  };
};
