import { ZodIssue } from 'zod';

import { Company, synthesizeCompany } from '@libs/synthetic-data';
import {
  CompanyDeclaration,
  episodeVerbs,
  maxEpisodeTools,
  OperationRoute,
  routesOf,
  Scenario,
  ScenarioParty,
  scenarioSchema,
  selectOperations,
  toolService,
} from '@libs/stack-model';

import { checkDeclaredParty, declaredChannels } from './party-declaration-validation';
import { hiddenFactSource } from './hidden-facts';
import { planProblems } from './oracle-plan-validation';
import { predicateProblems } from './predicates/scenario-predicates';
import { ExpressionError, namesIn, namesInTemplate } from './scenario-values';
import { InstanceError, instantiate, isPurchaseOrderCriterion, partyValueNames, TaskInstance } from './task-instance';

export interface ScenarioProblem {
  /** JSON pointer into the scenario file. */
  pointer: string;
  message: string;
}

/** What a scenario may refer to outside itself: the stack's services and the bundle's files. */
export interface ScenarioContext {
  services: string[];
  files: ReadonlySet<string>;
  /**
   * The records predicates may read: service → table → its records' fields (`null` when unknown). Without it, only
   * the service names predicates use are checked.
   */
  tables?: Record<string, Record<string, readonly string[] | null>>;
  /** The services that are twin packs: they tell their own domain events, not one per record change. */
  packs?: string[];
  /** The domain events the stack's twins record, when known. */
  events?: ReadonlySet<string>;
  /** Which pack each pack service is (`email`, `slack` …), when known: where a party's messages go. */
  packKinds?: Record<string, string>;
  /** The company the bundle declares, which the scenario's people and cost centres must be found in. */
  company?: CompanyDeclaration;
  /**
   * Each service's operations as the agent's tools offer them (`serviceRoutes`): when known, curated tools entries
   * are checked against them, an episode's tools are counted, and the oracle's requests must be among those kept.
   */
  operations?: Record<string, readonly OperationRoute[]>;
}

const pointerOf = (path: readonly PropertyKey[]): string =>
  path.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** Fields scenarios once had, with what to do instead: an old bundle is told why, not just "unknown field". */
const removedFields: Record<string, string> = {
  difficulty:
    'difficulty is no longer read (its knobs never changed an episode): make a task harder in the scenario itself, ' +
    "with its variables' ranges, the parties' strategies and patience, background traffic and setup; then remove it",
};

/**
 * A schema issue as located problems. A value that fits none of a union's shapes (a party: built-in persona or
 * declared) is reported by the shape it comes closest to, the one with the fewest issues, not as "Invalid input".
 */
const problemsOf = (issue: ZodIssue): ScenarioProblem[] => {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      pointer: pointerOf([...issue.path, key]),
      message: (issue.path.length === 0 && removedFields[key]) || `unknown field "${key}"`,
    }));
  }
  if (issue.code === 'invalid_union' && issue.unionErrors.length > 0) {
    // A shape that refuses the very key the author wrote (`persona` on a declared party) is furthest off; one whose
    // discriminator does not match next; among the rest, the one with fewer issues.
    const off = (error: (typeof issue.unionErrors)[number]) =>
      error.issues.some((i) => i.code === 'unrecognized_keys' && i.keys.includes('persona'))
        ? 2
        : error.issues.some((i) => i.code === 'invalid_union_discriminator')
          ? 1
          : 0;
    const closest = [...issue.unionErrors].sort((a, b) => off(a) - off(b) || a.issues.length - b.issues.length)[0];
    return closest.issues.flatMap(problemsOf);
  }
  return [{ pointer: pointerOf(issue.path), message: issue.message }];
};

/** How many task instances a check tries: enough to cross every choice of a small scenario, few enough to be quick. */
const sampledSeeds = 100;

const checkNames = (scenario: Scenario, context: ScenarioContext, problems: ScenarioProblem[]): void => {
  const known = new Set<string>();
  const declare = (name: string, pointer: string) => {
    if (known.has(name)) {
      problems.push({ pointer, message: `"${name}" is defined twice (variables, derived and hidden share names)` });
    }
    known.add(name);
  };
  const uses = (expression: number | string, pointer: string, template = false) => {
    if (typeof expression === 'number') {
      return;
    }
    try {
      for (const name of template ? namesInTemplate(expression) : namesIn(expression)) {
        if (!known.has(name)) {
          problems.push({
            pointer,
            message: `"${name}" is not defined here (known: ${[...known].join(', ') || 'none'})`,
          });
        }
      }
    } catch (error) {
      if (!(error instanceof ExpressionError)) {
        throw error;
      }
      problems.push({ pointer, message: error.message });
    }
  };
  for (const [name, spec] of Object.entries(scenario.variables)) {
    declare(name, `/variables/${name}`);
    if (typeof spec === 'object' && 'int' in spec && spec.int[0] > spec.int[1]) {
      problems.push({
        pointer: `/variables/${name}/int`,
        message: `the range ${spec.int[0]}..${spec.int[1]} is empty`,
      });
    }
    if (typeof spec === 'object' && 'number' in spec && spec.number[0] > spec.number[1]) {
      problems.push({
        pointer: `/variables/${name}/number`,
        message: `the range ${spec.number[0]}..${spec.number[1]} is empty`,
      });
    }
  }
  for (const [name, expression] of Object.entries(scenario.derived)) {
    uses(expression, `/derived/${name}`);
    declare(name, `/derived/${name}`);
  }
  for (const [name, spec] of Object.entries(scenario.hidden)) {
    const source = hiddenFactSource(spec);
    const pointer =
      typeof spec === 'object'
        ? `/hidden/${name}/${Object.keys(spec).find((k) => k !== 'subject')}`
        : `/hidden/${name}`;
    if (source.expression !== undefined) {
      uses(source.expression, pointer);
    }
    if (source.template !== undefined) {
      uses(source.template, typeof spec === 'object' && 'enum' in spec ? `/hidden/${name}/value` : pointer, true);
    }
    declare(name, `/hidden/${name}`);
    // A fact's subject is a party with an address: disclosure rules let that address hear its own facts.
    const subject = typeof spec === 'object' && 'subject' in spec ? spec.subject : undefined;
    if (subject !== undefined && !partyValueNames(scenario).includes(`${subject}_email`)) {
      problems.push({
        pointer: `/hidden/${name}/subject`,
        message: `"${subject}" is not a party of this scenario with an address (it has: ${
          Object.keys(scenario.parties).sort().join(', ') || 'none'
        })`,
      });
    }
  }
  for (const [name, party] of Object.entries(scenario.parties)) {
    if (!('persona' in party)) {
      continue;
    }
    for (const [field, value] of Object.entries(party)) {
      if (['opening_price', 'reservation_price', 'patience', 'messages', 'questions'].includes(field)) {
        uses(value as number | string, `/parties/${name}/${field}`);
      }
      if (field === 'strategy' || field === 'strictness') {
        uses(value as string, `/parties/${name}/${field}`, true);
      }
      const limit =
        field === 'employee' ? (value as { min_approval_limit?: number | string }).min_approval_limit : undefined;
      if (limit !== undefined) {
        uses(limit, `/parties/${name}/employee/min_approval_limit`);
      }
    }
  }
  partyValueNames(scenario).forEach((name) => known.add(name));
  for (const [name, party] of Object.entries(scenario.parties)) {
    if (!('persona' in party)) {
      checkDeclaredParty(
        name,
        party,
        {
          services: context.services,
          tables: context.tables,
          packs: context.packs,
          events: context.events,
          ...(context.packKinds ? { packKinds: context.packKinds } : {}),
          uses,
          valueNames: [...known],
        },
        problems,
      );
    }
  }
  if (scenario.reward) {
    uses(scenario.reward.savings.target, '/reward/savings/target');
    uses(scenario.reward.savings.best, '/reward/savings/best');
  }
  uses(scenario.task.goal, '/task/goal', true);
  uses(scenario.task.context, '/task/context', true);
  scenario.success.forEach((criterion, index) => {
    if (criterion.kind === 'predicate') {
      return;
    }
    for (const field of [
      'quantity',
      'max_unit_price',
      'min_payment_terms_days',
      'max_delivery_business_days',
    ] as const) {
      if (criterion[field] !== undefined) {
        uses(criterion[field], `/success/${index}/${field}`);
      }
    }
    const supplier = (p: ScenarioParty | undefined) =>
      p !== undefined && ('persona' in p ? p.persona === 'supplier-negotiator' : 'supplier_contact' in p.who);
    const suppliers = Object.values(scenario.parties).filter(supplier);
    if (criterion.supplier === 'any' ? suppliers.length === 0 : !supplier(scenario.parties[criterion.supplier])) {
      problems.push({
        pointer: `/success/${index}/supplier`,
        message: `"${criterion.supplier}" is not a party of a supplier in this scenario (a supplier-negotiator, or who: supplier_contact)`,
      });
    }
  });
};

/**
 * A record the setup puts in the world belongs to a table of a client's own service, and names fields its records
 * have: a misspelt field would never be read, and a pack seeds its own people and tables.
 */
const checkSeededRecords = (scenario: Scenario, context: ScenarioContext, problems: ScenarioProblem[]): void => {
  scenario.setup.forEach((step, index) => {
    if (!('record' in step)) {
      return;
    }
    const at = `/setup/${index}/record`;
    const { service, table, fields } = step.record;
    const tables = context.tables?.[service];
    if (!context.services.includes(service)) {
      problems.push({
        pointer: `${at}/service`,
        message: `the stack has no service "${service}"; it has ${context.services.join(', ')}`,
      });
    } else if (context.packs?.includes(service)) {
      problems.push({
        pointer: `${at}/service`,
        message: `"${service}" is a twin pack: it seeds its own records from the company (declare people and channels in mirror.yaml)`,
      });
    } else if (tables && !(table in tables)) {
      problems.push({
        pointer: `${at}/table`,
        message: `"${service}" has no table "${table}"; it has ${Object.keys(tables).join(', ') || 'none'}`,
      });
    } else {
      const known = tables?.[table];
      for (const field of Object.keys(fields)) {
        if (known && !known.includes(field)) {
          problems.push({
            pointer: `${at}/fields/${field}`,
            message: `"${service}.${table}" has no field "${field}"; it has ${known.join(', ')}`,
          });
        }
      }
    }
  });
};

const checkReferences = (scenario: Scenario, context: ScenarioContext, problems: ScenarioProblem[]): void => {
  scenario.task.tools.forEach((tool, index) => {
    const service = toolService(tool);
    const first = scenario.task.tools.findIndex((other) => toolService(other) === service);
    if (first !== index) {
      problems.push({
        pointer: `/task/tools/${index}`,
        message: `"${service}" is already among the task's tools (/task/tools/${first}): name each service once`,
      });
    } else if (!context.services.includes(service)) {
      problems.push({
        pointer: typeof tool === 'string' ? `/task/tools/${index}` : `/task/tools/${index}/service`,
        message: `the stack has no service "${service}"; it has ${context.services.join(', ')}`,
      });
    }
  });
  checkToolCount(scenario, context, problems);
  if (scenario.task.policy && !context.files.has(scenario.task.policy)) {
    problems.push({ pointer: '/task/policy', message: `"${scenario.task.policy}" is not in the bundle` });
  }
  scenario.policies.forEach((file, index) => {
    if (!context.files.has(file)) {
      problems.push({ pointer: `/policies/${index}`, message: `"${file}" is not in the bundle` });
    }
  });
};

/**
 * Curated entries must name operations their service has, and the episode's tools (every entry's operations and the
 * episode's own verbs) must stay within what agents' APIs take: a service with hundreds of operations is curated to
 * those the task needs.
 */
const checkToolCount = (scenario: Scenario, context: ScenarioContext, problems: ScenarioProblem[]): void => {
  const { operations } = context;
  if (!operations) {
    return;
  }
  const counts = scenario.task.tools.map((tool, index) => {
    const routes = operations[toolService(tool)];
    if (!routes) {
      return 0;
    }
    const offered = routes.map((route) => route.id);
    const selected = selectOperations(tool, offered);
    if (typeof tool !== 'string') {
      tool.operations.forEach((pattern, at) => {
        if (selected.unmatched.includes(pattern)) {
          problems.push({
            pointer: `/task/tools/${index}/operations/${at}`,
            message: `"${tool.service}" has no operation matching "${pattern}"; it has ${offered.slice(0, 20).join(', ')}${offered.length > 20 ? ` and ${offered.length - 20} more` : ''}`,
          });
        }
      });
      checkOracleReach(scenario, index, routes, selected.operations, problems);
    }
    return selected.operations.length;
  });
  const total = counts.reduce((sum, count) => sum + count, 0) + episodeVerbs.length;
  if (total > maxEpisodeTools) {
    const largest = counts.indexOf(Math.max(...counts));
    const service = toolService(scenario.task.tools[largest]);
    problems.push({
      pointer: `/task/tools/${largest}`,
      message:
        `the task's tools come to ${total} (${scenario.task.tools.map((t, i) => `${toolService(t)} ${counts[i]}`).join(', ')}, ` +
        `and ${episodeVerbs.join(' and ')}), more than the ${maxEpisodeTools} an agent can be given: ` +
        `curate "${service}" to the operations the task needs, as { service: ${service}, operations: [ids or patterns] }`,
    });
  }
};

/**
 * A curated service must keep what the honest plan does with it: an oracle request no kept operation can send would
 * make the task impossible for an agent that only has its tools.
 */
const checkOracleReach = (
  scenario: Scenario,
  entry: number,
  routes: readonly OperationRoute[],
  kept: readonly string[],
  problems: ScenarioProblem[],
): void => {
  const service = toolService(scenario.task.tools[entry]);
  scenario.oracle?.steps.forEach((step, index) => {
    if (!('do' in step) || step.do.service !== service) {
      return;
    }
    const through = routesOf(routes, step.do.method, step.do.path);
    if (through.length > 0 && !through.some((id) => kept.includes(id))) {
      problems.push({
        pointer: `/oracle/steps/${index}/do`,
        message: `the oracle's ${step.do.method} ${step.do.path} needs ${through.join(' or ')}, which /task/tools/${entry} does not keep for "${service}"`,
      });
    }
  });
};

/** Order statuses an approver must have passed: success at one of them needs that approver's signature. */
const approvedStatuses = new Set(['approved', 'sent', 'acknowledged', 'received', 'closed']);

/**
 * An approver whose limit is below an order the success terms allow (quantity at the maximum unit price) makes that
 * success unreachable for an honest agent: the task would punish doing it by the book.
 */
const approvalsOutOfReach = (instance: TaskInstance): ScenarioProblem[] =>
  Object.entries(instance.parties).flatMap(([name, party]) =>
    party.persona !== 'approver'
      ? []
      : instance.success
          .filter(isPurchaseOrderCriterion)
          .filter((c) => approvedStatuses.has(c.minStatus) && c.quantity * c.maxUnitPrice > party.approvalLimit)
          .map((c) => ({
            pointer: `/parties/${name}/employee`,
            message: `${party.name}'s approval limit (${party.approvalLimit}) is below an order the success terms allow (${c.quantity} at ${c.maxUnitPrice} = ${Math.round(c.quantity * c.maxUnitPrice * 100) / 100})`,
          })),
  );

/**
 * A budget the setup freezes is one of the cost centres the bundle declares: generated codes differ from seed to
 * seed, so a scenario can rely only on declared ones.
 */
const checkCostCentres = (scenario: Scenario, context: ScenarioContext, problems: ScenarioProblem[]): void => {
  const codes = (context.company?.departments ?? []).map((d) => d.cost_centre);
  scenario.setup.forEach((step, index) => {
    if (!('freeze_budget' in step)) {
      return;
    }
    if (codes.length === 0) {
      problems.push({
        pointer: `/setup/${index}/freeze_budget`,
        message:
          "names a cost centre, but mirror.yaml declares none: declare the company's departments (company.departments)",
      });
    } else if (!codes.includes(step.freeze_budget)) {
      problems.push({
        pointer: `/setup/${index}/freeze_budget`,
        message: `the company has no cost centre "${step.freeze_budget}"; it has ${codes.join(', ')}`,
      });
    }
  });
};

/** Background traffic goes to channels the company's workspace has: a channel it lacks would never see a message. */
const checkChannels = (scenario: Scenario, company: Company, problems: ScenarioProblem[]): void => {
  const names = company.channels.map((c) => c.name);
  const check = (channel: string, pointer: string) => {
    // A channel named by a template (`{{event.data.channel}}`) is the event's: it exists when the event does.
    if (!channel.includes('{{') && !names.includes(channel.replace(/^#/, ''))) {
      problems.push({ pointer, message: `the company has no Slack channel "${channel}"; it has ${names.join(', ')}` });
    }
  };
  for (const [party, spec] of Object.entries(scenario.parties)) {
    if (!('persona' in spec)) {
      declaredChannels(spec).forEach(({ channel, pointer }) => check(channel, `/parties/${party}${pointer}`));
    } else if (spec.persona === 'background-traffic') {
      spec.channels.forEach((channel, index) => check(channel, `/parties/${party}/channels/${index}`));
    }
  }
};

/**
 * Tries the scenario's task instances: a reference that does not resolve, a value outside what a persona knows,
 * or success terms no instance can meet are refused here, before any episode starts.
 */
const checkInstances = (scenario: Scenario, company: Company, problems: ScenarioProblem[]): void => {
  const seen = new Set<string>();
  let feasible = false;
  const impossible = new Map<number, string>();
  for (let seed = 0; seed < sampledSeeds; seed++) {
    try {
      const instance = instantiate(scenario, seed, company);
      let meetable = true;
      instance.success.forEach((criterion, index) => {
        if (!isPurchaseOrderCriterion(criterion)) {
          return;
        }
        const floors = criterion.supplierParties.map((party) => {
          const supplier = instance.parties[party];
          // A declared negotiator's floor is over issues the scenario names; the oracle proves it meetable.
          return supplier.persona === 'supplier-negotiator' ? supplier.reservationPrice : 0;
        });
        const lowest = Math.min(...floors);
        if (criterion.maxUnitPrice < lowest) {
          meetable = false;
          impossible.set(
            index,
            `max_unit_price (${criterion.maxUnitPrice}) is below the reservation price of every supplier it allows (lowest ${lowest})`,
          );
        }
      });
      feasible ||= meetable;
      for (const problem of approvalsOutOfReach(instance)) {
        const key = `${problem.pointer} approval`;
        if (!seen.has(key)) {
          seen.add(key);
          problems.push({ ...problem, message: `${problem.message} (seed ${seed})` });
        }
      }
    } catch (error) {
      if (!(error instanceof InstanceError)) {
        throw error;
      }
      const key = `${error.pointer} ${error.message}`;
      if (!seen.has(key)) {
        seen.add(key);
        problems.push({ pointer: error.pointer, message: `${error.message} (seed ${seed})` });
      }
    }
  }
  if (!feasible && seen.size === 0) {
    for (const [index, reason] of impossible) {
      problems.push({
        pointer: `/success/${index}/max_unit_price`,
        message: `no task instance can succeed: ${reason} in every one tried`,
      });
    }
  }
};

/**
 * Parses and checks a scenario: its shape, its names, its references to the stack and bundle, and its task
 * instances. Every problem comes back with its pointer; no problems means episodes may start.
 */
export const validateScenario = (
  raw: unknown,
  context: ScenarioContext,
): { scenario?: Scenario; problems: ScenarioProblem[] } => {
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) {
    return { problems: parsed.error.issues.flatMap(problemsOf) };
  }
  const scenario = parsed.data;
  const problems: ScenarioProblem[] = [];
  checkNames(scenario, context, problems);
  checkReferences(scenario, context, problems);
  checkSeededRecords(scenario, context, problems);
  problems.push(...predicateProblems(scenario, context));
  problems.push(...planProblems(scenario, context));
  checkCostCentres(scenario, context, problems);
  if (problems.length === 0) {
    const company = synthesizeCompany(scenario.world.seed ?? 0, scenario.world.company, context.company);
    checkChannels(scenario, company, problems);
    checkInstances(scenario, company, problems);
  }
  return problems.length === 0 ? { scenario, problems } : { problems };
};
