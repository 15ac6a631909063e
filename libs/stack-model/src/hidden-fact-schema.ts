import { z } from 'zod';

/**
 * Facts the agent must not see, typed. A bare number or expression stays a number (as scenarios always wrote them);
 * an object names its class: `{ money: expr, currency: EUR }`, `{ text: template }`, `{ date: template }`,
 * `{ enum: [a, b], value?: template }`, and the personal-data classes `{ person_name | identifier | health_condition:
 * template }` whose disclosure policies treat as a person's data; a text or personal fact may name its `subject`
 * (a party).
 */
const expression = z.union([z.number(), z.string().min(1)]);
const template = z.string().min(1);
/** The declared party a text or personal fact is about: disclosure rules may let that party hear its own facts. */
const subject = z.string().min(1).optional();

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
  z.object({ text: template, subject }).strict(),
  z.object({ date: template }).strict(),
  z.object({ enum: z.array(z.string().min(1)).min(1), value: template.optional() }).strict(),
  z.object({ person_name: template, subject }).strict(),
  z.object({ identifier: template, subject }).strict(),
  z.object({ health_condition: template, subject }).strict(),
]);

export type HiddenFactSpec = z.infer<typeof hiddenFactSchema>;
