import { DataSource } from 'typeorm';

import type { Role } from '@libs/access';
import { ApiKeyRepository } from '@libs/persistence';

/** A key as the operator's `mirror keys create` makes one: the whole key, to send as a bearer token. */
export const issueApiKey = async (
  dataSource: DataSource,
  tenantId: string,
  role: Role,
  expiresAt: string | null = null,
): Promise<{ id: string; token: string }> => {
  const key = await new ApiKeyRepository(dataSource).create(
    tenantId,
    { role, name: `test ${role}`, expiresAt },
    { actor: 'operator:test', actorKind: 'admin' },
  );
  return { id: key.id, token: key.token };
};

export const bearer = (token: string): { Authorization: string } => ({ Authorization: `Bearer ${token}` });
