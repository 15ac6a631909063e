import { BadRequestException } from '@nestjs/common';
import { z } from 'zod';

import { roles } from '@libs/access';

const body = z
  .object({
    role: z.enum(roles, { message: `role: must be one of ${roles.join(', ')}` }),
    name: z
      .string({ message: 'name: must be a string' })
      .trim()
      .min(1, 'name: must not be empty')
      .max(100, 'name: at most 100 characters')
      .optional(),
    expires_at: z
      .string({ message: 'expires_at: must be a string' })
      .datetime({ offset: true, message: 'expires_at: must be an ISO 8601 date-time' })
      .optional(),
  })
  .strict();

/** A key request's body, checked: a 400 names the field, and a key that would be born expired is refused. */
export const keyRequest = (
  raw: unknown,
  now = new Date(),
): { role: (typeof roles)[number]; name: string; expiresAt: string | null } => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new BadRequestException('body: must be a JSON object (Content-Type: application/json)');
  }
  const parsed = body.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message = issue.code === 'unrecognized_keys' ? `body: unknown field ${issue.keys.join(', ')}` : issue.message;
    throw new BadRequestException(message);
  }
  const expiresAt = parsed.data.expires_at === undefined ? null : new Date(parsed.data.expires_at).toISOString();
  if (expiresAt !== null && Date.parse(expiresAt) <= now.getTime()) {
    throw new BadRequestException('expires_at: must be in the future');
  }
  return { role: parsed.data.role, name: parsed.data.name ?? `${parsed.data.role} key`, expiresAt };
};
