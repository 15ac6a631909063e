import { evaluateRules, GradedEvent, Verdict } from '@libs/graders';
import { instantiate, Scenario, TaskInstance } from '@libs/scenarios';
import type { StackModel } from '@libs/stack-ingestion';
import type { Company } from '@libs/synthetic-data';
import type { TwinEngine } from '@libs/twin-engine';

/**
 * Judges an ended episode by the policy sets its scenario names, from the twins' event log (never from what the
 * agent says): every rule's verdict with its evidence.
 */
export const gradeEpisode = async (
  gatewayUrl: string,
  episodeId: string,
  model: StackModel,
  scenario: Scenario,
  instance: TaskInstance,
  company: Company,
): Promise<Verdict[]> => {
  const rules = (model.policies ?? []).filter((p) => scenario.policies.includes(p.file)).flatMap((p) => p.policy.rules);
  if (rules.length === 0) {
    return [];
  }
  const response = await fetch(`${gatewayUrl}/_mirror/episodes/${episodeId}/events`);
  const { events } = (await response.json()) as { events: GradedEvent[] };
  return evaluateRules(
    rules,
    events,
    {
      hidden: instance.hidden,
      values: instance.values,
      internalDomain: company.domain,
      approvalLimits: Object.fromEntries(company.employees.map((e) => [e.id, e.approvalLimit])),
    },
    [company.agent.id, company.agent.email],
  );
};

/** The verdicts of an episode this process ran: its company and task instance rebuilt from the engine and the seed. */
export const gradeRun = async (
  context: { engine: TwinEngine; gatewayUrl: string; model: StackModel },
  scenario: Scenario,
  seed: number,
  episodeId: string,
): Promise<Verdict[]> => {
  const company = (await context.engine.episode(episodeId)).twin.world.company as Company;
  return gradeEpisode(
    context.gatewayUrl,
    episodeId,
    context.model,
    scenario,
    instantiate(scenario, seed, company),
    company,
  );
};
