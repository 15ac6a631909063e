import { BadRequestException } from '@nestjs/common';
import { z } from 'zod';

import { defaultKeyExpiry, roles } from '@libs/access';

const body = z
  .object({
    role: z.enum(roles, { message: `role: must be one of ${roles.join(', ')}` }),
    name: z
      .string({ message: 'name: must be a string' })
      .trim()
      .min(1, 'name: must not be empty')
      .max(100, 'name: at most 100 characters')
      .optional(),
    // Absent: the default lifetime. null: never, for whoever asks for it.
    expires_at: z
      .string({ message: 'expires_at: must be an ISO 8601 date-time, or null for a key that never expires' })
      .datetime({ offset: true, message: 'expires_at: must be an ISO 8601 date-time' })
      .nullable()
      .optional(),
  })
  .strict();

/**
 * A key request's body, checked: a 400 names the field, and a key that would be born expired is refused. Without
 * `expires_at` the key gets the default lifetime; `expires_at: null` asks for one that never expires.
 */
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
  const given = parsed.data.expires_at;
  const expiresAt = given === undefined ? defaultKeyExpiry(now) : given === null ? null : new Date(given).toISOString();
  if (expiresAt !== null && Date.parse(expiresAt) <= now.getTime()) {
    throw new BadRequestException('expires_at: must be in the future');
  }
  return { role: parsed.data.role, name: parsed.data.name ?? `${parsed.data.role} key`, expiresAt };
};
