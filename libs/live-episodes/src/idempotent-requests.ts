import { createHash } from 'node:crypto';

import { EpisodeRequestError } from '@libs/agent-tools';
import type { LiveEpisodeRepository } from '@libs/persistence';

/** JSON with object keys sorted: the same body however its keys were ordered. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) {
    return `[${value.map(canonical).join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * Mutations of the episode API under an `Idempotency-Key`: the same key with the same body (in the same tenant and
 * scope: the route and the episode) replays the first response; with another body it is refused (422 `idempotency_key_reused`);
 * while the first is still being answered, 429 `idempotency_key_in_flight`. A request that failed keeps no key, so it
 * may be retried. Responses are kept in the database (a replayed creation holds the episode's token again).
 */
export class IdempotentRequests {
  constructor(private readonly repository: LiveEpisodeRepository) {}

  async run(
    tenantId: string,
    scope: string,
    key: string | undefined,
    body: unknown,
    work: () => Promise<StoredResponse>,
  ): Promise<StoredResponse & { replayed: boolean }> {
    if (key === undefined) {
      return { ...(await work()), replayed: false };
    }
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw new EpisodeRequestError(
        'idempotency_key_invalid',
        400,
        'Idempotency-Key: 1 to 255 printable ASCII characters without spaces',
      );
    }
    const hash = createHash('sha256').update(canonical(body)).digest('hex');
    const claim = await this.repository.claimKey(tenantId, scope, key, hash);
    switch (claim.kind) {
      case 'other-body':
        throw new EpisodeRequestError(
          'idempotency_key_reused',
          422,
          'Idempotency-Key: this key was used with another body; use a new key for a new request',
        );
      case 'pending':
        throw new EpisodeRequestError(
          'idempotency_key_in_flight',
          429,
          'Idempotency-Key: the first request with this key is still being answered',
          1,
        );
      case 'replay':
        return { status: claim.status, body: claim.response, replayed: true };
      case 'claimed':
        break;
    }
    try {
      const response = await work();
      await this.repository.completeKey(tenantId, scope, key, response.status, response.body);
      return { ...response, replayed: false };
    } catch (error) {
      await this.repository.releaseKey(tenantId, scope, key);
      throw error;
    }
  }
}
