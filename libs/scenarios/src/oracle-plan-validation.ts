import { bodyExpressions, expressionProblem, templateExpressions } from '@libs/party-reactions';
import { type PlanStep, type Scenario, toolServices } from '@libs/stack-model';

import { PlanEditError, trapSteps } from './oracle-plan';
import { predicateChecker } from './predicates/scenario-predicates';
import { partyValueNames } from './task-instance';

interface PlanContext {
  services: string[];
  tables?: Record<string, Record<string, readonly string[] | null>>;
}

type Problem = { pointer: string; message: string };

/** Names a plan's templates may read besides the values and the answers saved before them. */
const planNames = ['agent', 'now'] as const;

/** Every template of a step, with the pointer (relative to the step) of the field it stands in. */
const templatesOf = (step: PlanStep): { pointer: string; source: string }[] => {
  const texts = (pointer: string, text: string | undefined) =>
    text === undefined ? [] : templateExpressions(text).map((source) => ({ pointer, source }));
  if ('do' in step) {
    return [
      ...texts('/do/path', step.do.path),
      ...bodyExpressions(step.do.body).map(({ pointer, source }) => ({ pointer: `/do/body${pointer}`, source })),
    ];
  }
  if ('say' in step) {
    if ('mail' in step.say) {
      const { to, subject, text, body } = step.say.mail;
      return [
        ...texts('/say/mail/to', to),
        ...texts('/say/mail/subject', subject),
        ...texts('/say/mail/text', text),
        ...texts('/say/mail/body', body),
      ];
    }
    return [
      ...texts('/say/slack/channel', step.say.slack.channel),
      ...texts('/say/slack/text', step.say.slack.text),
      ...texts('/say/slack/thread_ts', step.say.slack.thread_ts),
    ];
  }
  return [];
};

/**
 * The problems of one plan's steps: a service the agent may not use (not a service of the stack, or not among the
 * task's tools), a template that does not parse or names what the plan cannot know at that step, a wait predicate
 * that could never be judged. Each at its pointer (`at` is where the steps stand in the scenario).
 */
const stepProblems = (
  scenario: Scenario,
  context: PlanContext,
  steps: readonly PlanStep[],
  /** Where a step is written; undefined for a step reported elsewhere (a trap's copy of the oracle's). */
  pointerOf: (index: number) => string | undefined,
): Problem[] => {
  const values = [
    ...Object.keys(scenario.variables),
    ...Object.keys(scenario.derived),
    ...Object.keys(scenario.hidden),
    ...partyValueNames(scenario),
  ];
  const saved: string[] = [];
  const checkPredicate = predicateChecker(scenario, context);
  const problems: Problem[] = [];
  steps.forEach((step, index) => {
    const at = pointerOf(index);
    if (at === undefined) {
      if ('save' in step && step.save !== undefined) {
        saved.push(step.save);
      }
      return;
    }
    if ('do' in step) {
      if (!context.services.includes(step.do.service)) {
        problems.push({
          pointer: `${at}/do/service`,
          message: `"${step.do.service}" is not a service of the stack; it has ${context.services.join(', ')}`,
        });
      } else if (!toolServices(scenario.task.tools).includes(step.do.service)) {
        problems.push({
          pointer: `${at}/do/service`,
          message: `"${step.do.service}" is not among the task's tools (${toolServices(scenario.task.tools).join(', ')}): the agent cannot reach it`,
        });
      }
    }
    for (const { pointer, source } of templatesOf(step)) {
      const problem = expressionProblem(source, [...values, ...saved, ...planNames]);
      if (problem) {
        problems.push({ pointer: `${at}${pointer}`, message: problem });
      }
    }
    if (step.when !== undefined) {
      const problem = expressionProblem(step.when, [...values, ...saved, ...planNames]);
      if (problem) {
        problems.push({ pointer: `${at}/when`, message: problem });
      }
    }
    if ('wait' in step && 'until' in step.wait) {
      const problem = checkPredicate(step.wait.until);
      if (problem) {
        problems.push({ pointer: `${at}/wait/until`, message: problem });
      }
    }
    if ('save' in step && step.save !== undefined) {
      saved.push(step.save);
    }
  });
  return problems;
};

/**
 * Checks a scenario's oracle and traps: steps as above, step ids unique, trap ids unique, and every trap's edits
 * naming steps the oracle has. (That each trap's `catches` names a rule of the applied policies is checked where
 * policies are read.)
 */
export const planProblems = (scenario: Scenario, context: PlanContext): Problem[] => {
  const problems: Problem[] = [];
  const oracle = scenario.oracle;
  if (oracle) {
    const seen = new Set<string>();
    oracle.steps.forEach((step, index) => {
      if (step.id !== undefined && seen.has(step.id)) {
        problems.push({ pointer: `/oracle/steps/${index}/id`, message: `step id "${step.id}" is used twice` });
      }
      if (step.id !== undefined) {
        seen.add(step.id);
      }
    });
    problems.push(...stepProblems(scenario, context, oracle.steps, (i) => `/oracle/steps/${i}`));
  }
  const trapIds = new Set<string>();
  scenario.traps.forEach((trap, index) => {
    const at = `/traps/${index}`;
    if (trapIds.has(trap.id)) {
      problems.push({ pointer: `${at}/id`, message: `trap id "${trap.id}" is used twice` });
    }
    trapIds.add(trap.id);
    let steps: PlanStep[];
    try {
      steps = trapSteps(oracle, trap);
    } catch (error) {
      if (error instanceof PlanEditError) {
        problems.push({ pointer: `${at}${error.pointer}`, message: error.message });
        return;
      }
      throw error;
    }
    // A trap's own steps are reported where they are written; the oracle's, once, under the oracle.
    const lists: [string, PlanStep[] | undefined][] = [
      ['/steps', trap.steps],
      ['/from_oracle/steps', trap.from_oracle?.steps],
      ['/from_oracle/with', trap.from_oracle?.with],
    ];
    const written = (step: PlanStep): string | undefined => {
      for (const [pointer, list] of lists) {
        const i = list?.indexOf(step) ?? -1;
        if (i >= 0) {
          return `${at}${pointer}/${i}`;
        }
      }
      return undefined;
    };
    problems.push(...stepProblems(scenario, context, steps, (i) => written(steps[i])));
  });
  return problems;
};
