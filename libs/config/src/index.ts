import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

import { z } from 'zod';

/** Every setting Mirror reads from the environment, validated once at start-up. */
export const mirrorConfigSchema = z.object({
  /** A PostgreSQL server to use; without it the apps start an embedded PGlite over the wire protocol. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /** A Temporal frontend (host:port); without it the apps start the Temporal CLI dev server. */
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  /** Where the embedded database and dev-server state live. */
  MIRROR_DATA_DIR: z.string().default(path.join(process.cwd(), '.mirror')),
  /** Where built tools (the Temporal CLI) are cached across checkouts. */
  MIRROR_CACHE_DIR: z.string().default(path.join(os.homedir(), '.cache', 'mirror')),
  MIRROR_TENANT: z.string().default('default'),
  /**
   * The key of the gateway's operator routes (`/_mirror/…`: episodes, faults, records, clock, credentials), sent as
   * `Authorization: Bearer …`. Agents never get it. The CLI makes one per run when unset; a gateway and workers
   * started as separate processes must be given the same one.
   */
  MIRROR_OPERATOR_KEY: z.string().min(16, 'must have at least 16 characters').optional(),
  /**
   * The key task instances and worlds are drawn under (libs/scenarios instance-key.ts); by default one made once and
   * kept in the database. Set it to reproduce the same episodes from the same seeds in another installation.
   */
  MIRROR_INSTANCE_KEY: z.string().min(16, 'must have at least 16 characters').optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /**
   * An OpenAI-compatible chat-completions endpoint (`…/v1`) for persona voices; without it personas speak from
   * deterministic templates. Replies are cached per seed under MIRROR_DATA_DIR, so episodes of a group read alike.
   */
  MIRROR_PERSONA_LLM_URL: z.string().url().optional(),
  MIRROR_PERSONA_LLM_MODEL: z.string().default('gpt-4o-mini'),
  MIRROR_PERSONA_LLM_KEY: z.string().optional(),
  /**
   * An OpenAI-compatible endpoint for the optional rubric judge: advisory scores beside the deterministic verdicts,
   * which stay the source of truth. Without it, rubric questions are not asked.
   */
  MIRROR_RUBRIC_LLM_URL: z.string().url().optional(),
  MIRROR_RUBRIC_LLM_MODEL: z.string().default('gpt-4o-mini'),
  MIRROR_RUBRIC_LLM_KEY: z.string().optional(),
  /**
   * The OpenAI-compatible endpoint (`…/v1`) a model plays episodes through when `mirror run --agent openai:<model>`
   * names one (`--llm-url` wins over it); `_KEY` is its bearer key, when it needs one.
   */
  MIRROR_AGENT_LLM_URL: z.string().url().optional(),
  MIRROR_AGENT_LLM_KEY: z.string().optional(),
  /** Live episodes (the episode API) expire after this many seconds without a call or a ping; they are then ended. */
  MIRROR_EPISODE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /** Live episodes one `mirror up` holds at once; creating one more answers 429 with Retry-After. */
  MIRROR_MAX_LIVE_EPISODES: z.coerce.number().int().min(1).max(10_000).default(64),
});

export type MirrorConfig = z.infer<typeof mirrorConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: { field: string; message: string }[]) {
    super(`invalid configuration: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
  }
}

export const loadConfig = (environment: NodeJS.ProcessEnv = process.env): MirrorConfig => {
  const cleaned = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ''));
  const parsed = mirrorConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message })),
    );
  }
  return parsed.data;
};

/**
 * The operator key: MIRROR_OPERATOR_KEY, or one made now from the CSPRNG and put in this process's environment, so the
 * in-process worker and gateway, and processes this one starts, share it.
 */
export const resolveOperatorKey = (config: Pick<MirrorConfig, 'MIRROR_OPERATOR_KEY'>): string => {
  if (config.MIRROR_OPERATOR_KEY) {
    return config.MIRROR_OPERATOR_KEY;
  }
  const inherited = process.env.MIRROR_OPERATOR_KEY;
  if (inherited && inherited.length >= 16) {
    return inherited;
  }
  const made = randomBytes(32).toString('base64url');
  process.env.MIRROR_OPERATOR_KEY = made;
  return made;
};

/** The operator key a standalone process must be given: it has to match its gateway's (or its workers'). */
export const requireOperatorKey = (config: Pick<MirrorConfig, 'MIRROR_OPERATOR_KEY'>): string => {
  if (!config.MIRROR_OPERATOR_KEY) {
    throw new ConfigError([
      {
        field: 'MIRROR_OPERATOR_KEY',
        message: 'required: the gateway and its workers must share the key of the operator routes',
      },
    ]);
  }
  return config.MIRROR_OPERATOR_KEY;
};

/**
 * Injection token for the validated config: a class, so Nest resolves it by type without string tokens. The
 * interface merge gives it every field of MirrorConfig.
 */
/* eslint-disable @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging */
export abstract class MirrorSettings {}
export interface MirrorSettings extends MirrorConfig {}
/* eslint-enable @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging */
