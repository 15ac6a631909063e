import { BadRequestException } from '@nestjs/common';

import type { EvidenceSubject } from '@libs/episode-host';

const subjects: readonly EvidenceSubject[] = ['rollout', 'episode'];

const only = (query: Record<string, unknown>, names: readonly string[], usage: string): void => {
  for (const name of Object.keys(query)) {
    if (!names.includes(name)) {
      throw new BadRequestException(`${name}: unknown parameter; ${usage}`);
    }
  }
};

/** `GET /v1/audit/verify`'s query: `deep` (true or false, once) and nothing else. */
export const verifyQuery = (query: Record<string, unknown>): { deep: boolean } => {
  only(query, ['deep'], 'give deep=true|false or nothing');
  const deep = query.deep ?? 'false';
  if (deep !== 'true' && deep !== 'false') {
    throw new BadRequestException('deep: must be true or false, given once');
  }
  return { deep: deep === 'true' };
};

/** `GET /v1/audit/export`'s query: exactly one of `rollout=<id>` or `episode=<id>`, once. */
export const exportQuery = (query: Record<string, unknown>): { kind: EvidenceSubject; id: string } => {
  const usage = 'give rollout=<id> or episode=<id>';
  only(query, subjects, usage);
  const given = subjects.filter((kind) => query[kind] !== undefined);
  if (given.length !== 1) {
    throw new BadRequestException(`rollout, episode: ${usage}, one of them`);
  }
  const [kind] = given;
  const id = query[kind];
  if (typeof id !== 'string' || id.trim() === '') {
    throw new BadRequestException(`${kind}: give one id, once`);
  }
  return { kind, id };
};
