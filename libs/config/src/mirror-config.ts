import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

import { z } from 'zod';

/** Every setting Mirror reads from the environment, validated once at start-up. */
/**
 * Every setting Mirror reads from the environment, validated once at start-up. The descriptions are the documentation:
 * `mirror config --markdown` prints them as the table in deploy/README.md (a test keeps the two equal).
 */
export const mirrorConfigSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional()
    .describe(
      'A PostgreSQL server (`postgres://user:password@host:5432/db`); without it an embedded PGlite starts (a secret).',
    ),
  MIRROR_DATABASE_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(16)
    .describe(
      'PostgreSQL connections a process opens at most (episodes played at once share them); the embedded PGlite ' +
        'serves one.',
    ),
  MIRROR_MIGRATION_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional()
    .describe(
      "The schema owner's connection, for `mirror db …` only: it applies the migrations and grants " +
        'MIRROR_DATABASE_APP_ROLE what the apps need, so the role of DATABASE_URL (a member of that group) owns no ' +
        'table and cannot update, delete or unprotect evidence rows. Unset: `mirror db` uses DATABASE_URL, whose role ' +
        'then owns the tables (a secret).',
    ),
  MIRROR_DATABASE_APP_ROLE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case PostgreSQL role name (letters, digits, `_`)')
    .default('mirror_app')
    .describe(
      'The group role (NOLOGIN, made if missing) that `mirror db migrate` grants table rights to when ' +
        'MIRROR_MIGRATION_DATABASE_URL is set: evidence tables SELECT and INSERT only. Grant it to the login of ' +
        'DATABASE_URL (`GRANT mirror_app TO …`).',
    ),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .optional()
    .describe('A Temporal frontend (`host:7233`); without it the Temporal CLI dev server starts.'),
  TEMPORAL_NAMESPACE: z.string().default('default').describe('The Temporal namespace episodes and rollouts run in.'),
  MIRROR_TASK_QUEUE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The Temporal task queue a worker polls (tests give each worker its own); the built-in queue when unset.',
    ),
  MIRROR_DATA_DIR: z
    .string()
    .default(path.join(process.cwd(), '.mirror'))
    .describe('Where the embedded database, the dev server, caches and reports live.'),
  MIRROR_CACHE_DIR: z
    .string()
    .default(path.join(os.homedir(), '.cache', 'mirror'))
    .describe('Where built tools (the Temporal CLI) are cached across checkouts.'),
  MIRROR_TENANT: z
    .string()
    .default('default')
    .describe(
      "The tenant whose stacks and episodes a process serves (the CLI, an episode host, a gateway). A scaled-out worker has none: it plays each rollout for the tenant the rollout's input names.",
    ),
  MIRROR_CHROMIUM_PATH: z
    .string()
    .min(1)
    .default('/usr/bin/chromium')
    .describe(
      "The Chromium (or Chrome) that prints PDF reports (the api's report downloads, `mirror report --format pdf`); " +
        "Debian's `chromium` package puts it here. Without one a PDF request is a 503 that names this setting.",
    ),
  MIRROR_OPERATOR_KEY: z
    .string()
    .min(16, 'must have at least 16 characters')
    .optional()
    .describe(
      "Key of the gateway's operator routes (`/_mirror/…`), sent as a bearer token; agents never get it. The CLI " +
        'makes one per run; a gateway and its workers in separate processes must share one (a secret).',
    ),
  MIRROR_INSTANCE_KEY: z
    .string()
    .min(16, 'must have at least 16 characters')
    .optional()
    .describe(
      'Key task instances and worlds are drawn under; made once and kept in the database when unset. Set it to ' +
        'reproduce the same episodes from the same seeds in another installation (a secret).',
    ),
  HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('The address the api and gateway listen on; `0.0.0.0` in a container.'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe("The api's HTTP port."),
  GATEWAY_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(4000)
    .describe("The gateway's HTTP port (twin traffic `/e/{episode}/{service}/…`; `0` picks a free one)."),
  MIRROR_GATEWAY_URL: z
    .string()
    .regex(
      /^https?:\/\/[^\s,]+(,\s*https?:\/\/[^\s,]+)*$/,
      'must be one gateway URL (`http://gateway:4000`) or several, comma-separated',
    )
    .optional()
    .describe(
      'The shared twin gateway(s) a worker plays rollout trials through, comma-separated when there are several ' +
        '(each episode keeps to one of them and moves to the next when it is gone). Set, the worker also plays ' +
        'rollouts of any stored stack version; unset, it hosts no twins and plays persona steps only.',
    ),
  MIRROR_HEALTH_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .optional()
    .describe('When set, the worker answers `/healthz` and `/readyz` on this port (probes); off when unset.'),
  MIRROR_GATEWAY_RECHECK_AFTER_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(1000)
    .describe(
      "How long (ms) a gateway's copy of an episode may go unused before it reads the log's newer events, if any, " +
        'before answering again: an agent or worker that found this gateway unreachable went on at another, which ' +
        'wrote meanwhile. Each check is one indexed read; 0 checks before every request. Writes never fork the log ' +
        'whatever this is (a copy behind it reads what it missed and decides the write again).',
    ),
  MIRROR_STOP_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(600)
    .describe(
      'How long a stopping gateway answers its requests in flight and a stopping worker lets the rollout trials it ' +
        'began run to their end (then Temporal plays them elsewhere). Give the orchestrator a longer termination grace.',
    ),
  MIRROR_PERSONA_LLM_URL: z
    .string()
    .url()
    .optional()
    .describe(
      'An OpenAI-compatible endpoint (`…/v1`) for persona voices; without it personas speak from deterministic ' +
        'templates. Replies are cached per seed under MIRROR_DATA_DIR.',
    ),
  MIRROR_PERSONA_LLM_MODEL: z.string().default('gpt-4o-mini').describe('The model persona voices use.'),
  MIRROR_PERSONA_LLM_KEY: z.string().optional().describe('Bearer key of the persona endpoint (a secret).'),
  MIRROR_RUBRIC_LLM_URL: z
    .string()
    .url()
    .optional()
    .describe(
      'An OpenAI-compatible endpoint for the optional rubric judge (advisory scores beside the deterministic ' +
        'verdicts); without it rubric questions are not asked.',
    ),
  MIRROR_RUBRIC_LLM_MODEL: z.string().default('gpt-4o-mini').describe('The model the rubric judge uses.'),
  MIRROR_RUBRIC_LLM_KEY: z.string().optional().describe('Bearer key of the rubric endpoint (a secret).'),
  MIRROR_AGENT_LLM_URL: z
    .string()
    .url()
    .optional()
    .describe('The endpoint `mirror run --agent openai:<model>` plays through (`--llm-url` wins over it).'),
  MIRROR_AGENT_LLM_KEY: z.string().optional().describe('Bearer key of the agent endpoint (a secret).'),
  MIRROR_EPISODE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(900)
    .describe('Live episodes (the episode API) end after this many seconds without a call or a ping.'),
  MIRROR_MAX_LIVE_EPISODES: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(64)
    .describe('Live episodes one `mirror up` holds at once; one more answers 429 with Retry-After.'),
  MIRROR_LOG_FORMAT: z
    .enum(['text', 'json'])
    .default('text')
    .describe(
      'How the api, gateway and worker write logs: `text` for people, `json` one object per line (level, timestamp, ' +
        'message, context, and the episode, tenant, trace and span when known).',
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .describe(
      'An OTLP/HTTP collector (`http://collector:4318`): traces of every episode go to `{endpoint}/v1/traces`. ' +
        'Unset: no traces are recorded.',
    ),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The service name spans carry; each process names itself (`mirror-api`, `mirror-gateway`, …) when unset.',
    ),
  MIRROR_TWIN_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_048_576)
    .default(512)
    .describe(
      'Estimated memory (MB) a twin engine (the gateway, `mirror run`, `rollout`, `up`) keeps worlds and episodes ' +
        'in: beyond it the least recently used idle episodes, then worlds none of them stands on, are dropped and ' +
        'rebuilt from their seed and event log when next used. 0 keeps everything. The `mirror` launcher also sets ' +
        "V8's heap limit to this plus 512 MB (unless NODE_OPTIONS sets `--max-old-space-size`), so the process " +
        'collects before it outgrows the budget.',
    ),
  MIRROR_DEBUG: z.string().optional().describe('Any value prints stack traces with CLI errors.'),
});

export type MirrorConfig = z.infer<typeof mirrorConfigSchema>;

/** The gateways `MIRROR_GATEWAY_URL` lists, without trailing slashes; empty when it is unset. */
export const gatewayUrls = (config: Pick<MirrorConfig, 'MIRROR_GATEWAY_URL'>): string[] =>
  (config.MIRROR_GATEWAY_URL ?? '')
    .split(',')
    .map((url) => url.trim().replace(/\/+$/, ''))
    .filter((url) => url.length > 0);

/**
 * What a process keeps on V8's heap beside the twins' worlds and episodes: stack models and compiled validators, the
 * Temporal worker's workflow contexts, agents and their transcripts, the database client. A rollout of 64 episodes at
 * once and the ingest of a 1.7 MB vendor spec both stay well inside it.
 */
const heapBeyondTwinsMb = 512;

/**
 * V8's old-space limit for a process whose twins keep to `MIRROR_TWIN_MEMORY_MB`, or undefined when there is no budget
 * (0) or the setting is not valid (the command itself then reports it). Without a limit V8 sizes its heap from the
 * machine's memory (4 GB here) and lets garbage pile up far past the twins' budget before it collects hard.
 */
export const v8HeapLimitMb = (environment: NodeJS.ProcessEnv = process.env): number | undefined => {
  const parsed = mirrorConfigSchema.shape.MIRROR_TWIN_MEMORY_MB.safeParse(
    environment.MIRROR_TWIN_MEMORY_MB === '' ? undefined : environment.MIRROR_TWIN_MEMORY_MB,
  );
  return parsed.success && parsed.data > 0 ? parsed.data + heapBeyondTwinsMb : undefined;
};

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
