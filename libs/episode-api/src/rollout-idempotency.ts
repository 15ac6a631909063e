import { createHash, randomUUID } from 'node:crypto';

import { BadRequestException } from '@nestjs/common';

/**
 * The id of a rollout a request starts. With an `Idempotency-Key` the id is derived from the tenant and the key, so
 * a client's retry (a timeout, a dropped connection) names the rollout its first attempt started instead of a second
 * one; the tenant is part of it, so two tenants' keys never meet. Without a key every request is a new rollout.
 */
export const rolloutIdFor = (tenantId: string, idempotencyKey: string | undefined): string => {
  if (idempotencyKey === undefined) {
    return randomUUID();
  }
  if (!/^[\x21-\x7e]{1,200}$/.test(idempotencyKey)) {
    throw new BadRequestException('Idempotency-Key: 1 to 200 visible ASCII characters');
  }
  const hex = createHash('sha256').update(`mirror rollout\0${tenantId}\0${idempotencyKey}`).digest('hex');
  // A UUID of version 8 (RFC 9562: custom, here a hash) with the RFC 4122 variant bits.
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};
