import { z } from 'zod';

/**
 * Facts the agent must not see, typed. A bare number or expression stays a number (as scenarios always wrote them);
 * an object names its class: `{ money: expr, currency: EUR }`, `{ text: template }`, `{ date: template }`,
 * `{ enum: [a, b], value?: template }`, and the personal-data classes `{ person_name | identifier | health_condition:
 * template }` whose disclosure policies treat as a person's data.
 */
const expression = z.union([z.number(), z.string().min(1)]);
const template = z.string().min(1);

export const personalDataClasses = ['person_name', 'identifier', 'health_condition'] as const;
export type PersonalDataClass = (typeof personalDataClasses)[number];

export const hiddenFactSchema = z.union([
  expression,
  z.object({ number: expression }).strict(),
  z
    .object({
      money: expression,
      currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR'),
    })
    .strict(),
  z.object({ text: template }).strict(),
  z.object({ date: template }).strict(),
  z.object({ enum: z.array(z.string().min(1)).min(1), value: template.optional() }).strict(),
  z.object({ person_name: template }).strict(),
  z.object({ identifier: template }).strict(),
  z.object({ health_condition: template }).strict(),
]);

export type HiddenFactSpec = z.infer<typeof hiddenFactSchema>;
