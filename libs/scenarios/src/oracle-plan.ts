import type { OraclePlan, PlanStep, Trap } from '@libs/stack-model';

/** A trap's edit that names a step the oracle does not have: the pointer of the edit field, and why. */
export class PlanEditError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The steps a trap plays: its own whole plan, or the oracle's with its edits applied (insert after or before a step,
 * replace one, remove some). Every id an edit names must be a step of the oracle's.
 */
export const trapSteps = (oracle: OraclePlan | undefined, trap: Trap): PlanStep[] => {
  if (trap.steps) {
    return trap.steps;
  }
  const edit = trap.from_oracle;
  if (!oracle || !edit) {
    throw new PlanEditError('/from_oracle', 'changes the oracle, but the scenario has no oracle');
  }
  const indexOf = (id: string, field: string): number => {
    const index = oracle.steps.findIndex((step) => step.id === id);
    if (index < 0) {
      throw new PlanEditError(`/from_oracle/${field}`, `names step "${id}", which the oracle does not have`);
    }
    return index;
  };
  let steps = [...oracle.steps];
  if (edit.insert_after !== undefined) {
    steps.splice(indexOf(edit.insert_after, 'insert_after') + 1, 0, ...(edit.steps ?? []));
  } else if (edit.insert_before !== undefined) {
    steps.splice(indexOf(edit.insert_before, 'insert_before'), 0, ...(edit.steps ?? []));
  } else if (edit.replace !== undefined) {
    steps.splice(indexOf(edit.replace, 'replace'), 1, ...(edit.with ?? []));
  }
  if (edit.remove) {
    edit.remove.forEach((id, index) => indexOf(id, `remove/${index}`));
    steps = steps.filter((step) => step.id === undefined || !edit.remove?.includes(step.id));
  }
  return steps;
};
