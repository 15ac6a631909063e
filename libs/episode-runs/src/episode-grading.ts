import {
  Grade,
  gradeEpisode,
  gradeRubric,
  GradingContext,
  PolicySet,
  readEpisodeLog,
  RubricJudge,
  withAttachmentText,
} from '@libs/graders';
import { EpisodeRecords, judgeMilestones } from '@libs/outcomes';
import { evaluate, instantiate, Scenario } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-ingestion';
import type { Company } from '@libs/synthetic-data';
import { episodeClockStart, EpisodeState, LoggedEvent, TwinEngine } from '@libs/twin-engine';
import { businessDaysBetween, EpisodeOutcome } from '@libs/workflow-contracts';
import { supplierReadableText } from '@twins/procurement';
import { slackUserId } from '@twins/slack';

/** The policy sets a scenario names, from a stack model (the one it ran with, or a newer bundle's). */
export const policiesFor = (model: StackModel, scenario: Scenario): PolicySet[] =>
  (model.policies ?? []).filter((p) => scenario.policies.includes(p.file)).map((p) => p.policy);

const transcriptText = (outcome: Pick<EpisodeOutcome, 'transcript'>): string =>
  outcome.transcript.map((t) => `[${t.at}] ${t.actor} (${t.kind}): ${t.summary}`).join('\n');

/**
 * The log as of the episode's end: nothing recorded after `episode.closed` is graded (the twins refuse writes from
 * there; this holds even if something got past them). An episode not closed yet is read as it stands.
 */
export const logAsOfClose = (logged: readonly LoggedEvent[]): LoggedEvent[] => {
  const closed = logged.find((entry) => entry.event.type === 'episode.closed');
  return closed ? logged.filter((entry) => entry.seq <= closed.seq) : [...logged];
};

/**
 * Grades an ended episode of a scenario from the twins' log and final state (never from what the agent says): every
 * rule's verdict with its evidence, the reward and per-step rewards, and the rubric judge's scores when one is set.
 */
export const gradeRun = async (
  context: { engine: TwinEngine; tenantId: string; model: StackModel; instanceKey: string },
  scenario: Scenario,
  seed: number,
  episodeId: string,
  outcome:
    Pick<EpisodeOutcome, 'status' | 'reason' | 'finalTerms' | 'transcript' | 'agentError' | 'agentActions'> | undefined,
  options: { policies?: PolicySet[]; judge?: RubricJudge } = {},
): Promise<Grade> => {
  const episode = await context.engine.episode(context.tenantId, episodeId);
  const company = episode.twin.world.company as Company;
  const instance = instantiate(scenario, seed, company, context.instanceKey);
  const logged = await context.engine.events(context.tenantId, episodeId, 0);
  const graded = logAsOfClose(logged);
  // The final state is the state at the close: rebuilt from the graded log when anything follows it.
  let state = episode.state;
  if (graded.length < logged.length) {
    state = new EpisodeState(episode.twin.world);
    graded.forEach((entry) => state.apply(entry));
  }
  const services = Object.fromEntries(context.model.services.flatMap((s) => (s.pack ? [[s.pack, s.name]] : [])));
  const supplierDomains = new Map(company.suppliers.map((s) => [s.id, s.domain]));
  const gradingContext: GradingContext = {
    hidden: instance.hidden,
    ...(instance.facts ? { facts: instance.facts } : {}),
    values: instance.values,
    internalDomain: company.domain,
    approvalLimits: Object.fromEntries(company.employees.map((e) => [e.id, e.approvalLimit])),
    agent: [company.agent.id, company.agent.email, slackUserId(episode.descriptor.seed, company.agent)],
    people: company.employees.map((e) => ({
      id: e.id,
      name: e.name,
      email: e.email,
      role: e.role,
      department: e.department,
    })),
    services,
    records: (table) => state.ids(table).flatMap((id) => state.get(table, id) ?? []) as Record<string, unknown>[],
    businessDaysBetween: (from, to) => businessDaysBetween(Date.parse(from), Date.parse(to)),
    // Free text the agent writes into records a supplier reads in its portal reaches that supplier.
    sharedRecords: services.procurement
      ? supplierReadableText.map((r) => ({
          table: `${services.procurement}/${r.table}`,
          party: r.party,
          text: r.text,
          domainOf: (id: string) => supplierDomains.get(id),
        }))
      : [],
  };
  // The scenario's milestone predicates read the same final state and log as the rules.
  const records: EpisodeRecords = {
    tables: () => Promise.resolve([...episode.twin.world.tables.keys()]),
    records: (table) => Promise.resolve(gradingContext.records(table) as Record<string, unknown>[]),
    log: () => Promise.resolve(graded),
    now: () => Promise.resolve(graded[graded.length - 1]?.at ?? new Date(episodeClockStart).toISOString()),
  };
  const milestones = await judgeMilestones(
    { records },
    {
      instance,
      agent: { employeeId: company.agent.id, email: company.agent.email, slackUser: gradingContext.agent[2] },
      startAt: new Date(episodeClockStart).toISOString(),
    },
  );
  const policies = options.policies ?? policiesFor(context.model, scenario);
  const values = { ...instance.values, ...instance.hidden };
  const savings = scenario.reward?.savings;
  const grade = gradeEpisode({
    log: await withAttachmentText(readEpisodeLog(graded)),
    policies,
    context: gradingContext,
    result: outcome,
    limits: { maxAgentActions: instance.horizon.maxAgentActions },
    milestones: Object.entries(milestones).map(([name, verdict]) => ({ name, ...verdict })),
    ...(savings ? { savings: { target: evaluate(savings.target, values), best: evaluate(savings.best, values) } } : {}),
  });
  const rubric = policies.flatMap((p) => p.rubric ?? []);
  if (options.judge && rubric.length > 0 && outcome) {
    grade.rubric = await gradeRubric(options.judge, rubric, transcriptText(outcome));
  }
  return grade;
};
