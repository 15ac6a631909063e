import { z } from 'zod';

import { EpisodeRequestError } from '@libs/agent-tools';

/** The body as JSON, or 400 `body_invalid` saying why (the episode routes take their bodies as text). */
export const jsonBody = (raw: unknown): unknown => {
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  if (text.trim() === '') {
    throw new EpisodeRequestError('body_invalid', 400, 'body: empty; send a JSON object');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new EpisodeRequestError('body_invalid', 400, `body: not JSON (${(error as Error).message})`);
  }
};

/** Parses a body against a schema: 400 `body_invalid` naming each field that breaks it. */
export const bodyOf = <S extends z.ZodTypeAny>(schema: S, raw: unknown): z.infer<S> => {
  const parsed = schema.safeParse(jsonBody(raw));
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`,
    );
    throw new EpisodeRequestError('body_invalid', 400, problems.join('; '));
  }
  return parsed.data as z.infer<S>;
};

const taskFields = {
  environment: z.string().min(1),
  task: z.string().min(1).optional(),
  scenario: z.string().min(1).optional(),
  seed: z.number().int().min(0).optional(),
  max_steps: z.number().int().min(1).optional(),
};

const namesOneTask = (body: { task?: string; scenario?: string; seed?: number }, context: z.RefinementCtx): void => {
  const byTask = body.task !== undefined;
  const byScenario = body.scenario !== undefined || body.seed !== undefined;
  if (byTask === byScenario || (byScenario && (body.scenario === undefined || body.seed === undefined))) {
    context.addIssue({
      code: z.ZodIssueCode.custom,
      path: byTask ? ['task'] : ['scenario'],
      message: 'name the task as "task" ("<scenario>@<seed>") or as "scenario" and "seed", not both',
    });
  }
};

/** `{ environment, task }` or `{ environment, scenario, seed }`, with `max_steps` optional. */
export const episodeRequest = z.object(taskFields).strict().superRefine(namesOneTask);

/** The same with `n`, the group's size. */
export const groupRequest = z
  .object({ ...taskFields, n: z.number().int().min(1) })
  .strict()
  .superRefine(namesOneTask);

/** The task id a request names, either way. */
export const taskOf = (body: { task?: string; scenario?: string; seed?: number }): string =>
  body.task ?? `${body.scenario}@${body.seed}`;
