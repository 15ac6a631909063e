import { z } from 'zod';

/**
 * A rubric question an LLM judge answers about an ended episode. Advisory only: rule graders decide compliance, and a
 * rubric score is reported beside the verdict, never folded into it. `weight` is for whoever aggregates the scores.
 */
export const rubricItemSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
    question: z.string().min(1),
    weight: z.number().positive().default(1),
  })
  .strict();

export type RubricItem = z.infer<typeof rubricItemSchema>;
