import { ServerResponse } from 'node:http';

import { z } from 'zod';

import { ClockError, EpisodeClosedError } from '../episode';
import { domainEventsOf, EpisodeStarter, pageOfLog } from '../episode-events';
import { TwinEngine } from '../twin-engine';
import { writeJson } from './node-adapter';

const faultRule = z
  .object({
    latencyMs: z.tuple([z.number().min(0), z.number().min(0)]).optional(),
    errorRate: z.number().min(0).max(1).optional(),
    rateLimit: z.object({ requests: z.number().int().positive(), windowSeconds: z.number().positive() }).optional(),
    timeoutRate: z.number().min(0).max(1).optional(),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
  })
  .strict();

/**
 * Who starts, forks, resets, sets faults of and is issued credentials for episodes on these routes, as the evidence trail names them: whoever holds the
 * installation's operator key, the one credential they answer (the gateway knows no one more precisely).
 */
const operator: EpisodeStarter = { actor: 'operator-key', actorKind: 'admin' };

const faultSettings = z
  .object({
    services: z.record(z.string(), faultRule).optional(),
    operations: z.record(z.string(), faultRule).optional(),
  })
  .strict();

const newEpisode = z
  .object({
    stackVersion: z.string().regex(/^[0-9a-f]{8,64}$/, 'must be a stack version (sha256 hex or a prefix of 8+)'),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .default(1),
    sizes: z
      .object({
        recordsPerResource: z.number().int().min(0).max(100_000).optional(),
        childrenPerParent: z.number().int().min(0).max(1000).optional(),
        company: z
          .object({
            employees: z.number().int().min(1).max(20_000).optional(),
            suppliers: z.number().int().min(0).max(5_000).optional(),
            items: z.number().int().min(0).max(200_000).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    faults: faultSettings.optional(),
    // The task the episode plays, so that `mirror grade` can grade it later; the task's seed defaults to the world's.
    scenario: z
      .object({
        id: z.string().min(1).max(200),
        seed: z
          .number()
          .int()
          .min(0)
          .max(2 ** 32 - 1)
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const forkRequest = z.object({ atSeq: z.number().int().min(0).optional() }).strict();

const clockRequest = z
  .object({ at: z.string().datetime({ offset: true }), key: z.string().min(1).max(200).optional() })
  .strict();

const credentialRequest = z
  .object({
    service: z.string().min(1).max(200),
    principal: z.string().min(1).max(320),
    /** Fewer scopes than the spec declares, for a token that may do less (a spec twin's; packs have none). */
    scopes: z.array(z.string().min(1).max(200).regex(/^\S+$/)).max(100).optional(),
  })
  .strict();

const enrolment = z
  .object({
    service: z.string().min(1).max(200),
    address: z.string().email().max(320),
    name: z.string().min(1).max(200),
  })
  .strict();

/** Fields set on a record; with `create`, the record is made (from its schema, with these fields) when it is missing. */
const recordPatch = z
  .object({
    table: z.string().min(1),
    id: z.string().min(1),
    set: z.record(z.string(), z.unknown()),
    create: z.boolean().optional(),
  })
  .strict();

const parseJson = <S extends z.ZodTypeAny>(
  schema: S,
  body: Buffer | undefined,
  response: ServerResponse,
): z.infer<S> | undefined => {
  let raw: unknown = {};
  if (body && body.length > 0) {
    try {
      raw = JSON.parse(body.toString('utf8'));
    } catch (error) {
      writeJson(response, 400, { error: 'invalid_json', message: (error as Error).message });
      return undefined;
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    writeJson(response, 422, {
      error: 'invalid_request',
      message: 'the request body is invalid',
      problems: parsed.error.issues.map((issue) => ({
        location: `body/${issue.path.join('/')}`,
        message: issue.message,
      })),
    });
    return undefined;
  }
  return parsed.data as z.infer<S>;
};

/**
 * Episode management on the gateway: create, inspect, reset, fork, configure faults, issue credentials. Only the
 * operator reaches it (the gateway checks the operator key first). An ended episode refuses every change with 409.
 */
export const handleAdmin = async (
  engine: TwinEngine,
  tenantId: string,
  method: string,
  path: string,
  body: Buffer | undefined,
  response: ServerResponse,
  query = '',
): Promise<void> => {
  try {
    await route(engine, tenantId, method, path, body, response, query);
  } catch (error) {
    if (!(error instanceof EpisodeClosedError)) {
      throw error;
    }
    writeJson(response, 409, { error: 'episode_closed', message: error.message });
  }
};

const route = async (
  engine: TwinEngine,
  tenantId: string,
  method: string,
  path: string,
  body: Buffer | undefined,
  response: ServerResponse,
  query = '',
): Promise<void> => {
  if (method === 'GET' && path === '/health') {
    writeJson(response, 200, { status: 'ok' });
    return;
  }
  if (method === 'POST' && path === '/episodes') {
    const request = parseJson(newEpisode, body, response);
    if (request) {
      const episode = await engine.createEpisode({
        tenantId,
        stackVersion: request.stackVersion,
        seed: request.seed,
        ...(request.sizes ? { sizes: request.sizes } : {}),
        ...(request.faults ? { faults: request.faults } : {}),
        ...(request.scenario
          ? { scenario: { id: request.scenario.id, seed: request.scenario.seed ?? request.seed } }
          : {}),
        startedBy: operator,
      });
      writeJson(response, 201, describe(episode));
    }
    return;
  }
  const match = /^\/episodes\/([^/]+)(\/(reset|fork|faults|clock|records|events|log|close|credentials|people))?$/.exec(
    path,
  );
  if (!match) {
    writeJson(response, 404, { error: 'not_found', message: `no admin route ${method} ${path}` });
    return;
  }
  const [, episodeId, , action] = match;
  if (method === 'GET' && !action) {
    writeJson(response, 200, describe(await engine.episode(tenantId, episodeId)));
  } else if (method === 'POST' && action === 'close') {
    const episode = await engine.episode(tenantId, episodeId);
    await episode.close();
    writeJson(response, 200, describe(episode));
  } else if (method === 'POST' && action === 'reset') {
    writeJson(response, 200, describe(await engine.reset(tenantId, episodeId, operator)));
  } else if (method === 'POST' && action === 'fork') {
    const request = parseJson(forkRequest, body, response);
    if (request) {
      writeJson(response, 201, describe(await engine.fork(tenantId, episodeId, request.atSeq, operator)));
    }
  } else if (method === 'PUT' && action === 'faults') {
    const faults = parseJson(faultSettings, body, response);
    if (faults) {
      const episode = await engine.episode(tenantId, episodeId);
      await engine.setFaults(tenantId, episodeId, faults, operator);
      writeJson(response, 200, describe(episode));
    }
  } else if (method === 'POST' && action === 'records') {
    const request = parseJson(recordPatch, body, response);
    if (request) {
      const episode = await engine.episode(tenantId, episodeId);
      const patched = request.create
        ? await episode.seedRecord(request.table, request.id, request.set)
        : await episode.patchRecord(request.table, request.id, request.set);
      if (patched === 'closed') {
        throw new EpisodeClosedError(episodeId);
      }
      writeJson(
        response,
        patched === 'patched' ? 200 : patched === 'created' ? 201 : 404,
        patched !== 'not_found'
          ? describe(episode)
          : { error: 'not_found', message: `no record ${request.id} in ${request.table}` },
      );
    }
  } else if (method === 'POST' && action === 'people') {
    // An outside party of a scenario gets its account (a mailbox) before anyone writes to it.
    const request = parseJson(enrolment, body, response);
    if (request) {
      const episode = await engine.episode(tenantId, episodeId);
      const enrolled = await episode.enrol(request.service, { address: request.address, name: request.name });
      if (enrolled === 'closed') {
        throw new EpisodeClosedError(episodeId);
      }
      writeJson(
        response,
        enrolled === 'enrolled' ? 200 : 404,
        enrolled === 'enrolled'
          ? { service: request.service, address: request.address }
          : { error: 'not_found', message: `the episode's service "${request.service}" enrols no one` },
      );
    }
  } else if (method === 'GET' && action === 'records') {
    // The records as the twins hold them, for judging an outcome: every table's name, or one table's records.
    const episode = await engine.episode(tenantId, episodeId);
    const table = new URLSearchParams(query).get('table');
    if (table === null) {
      writeJson(response, 200, { tables: [...episode.twin.world.tables.keys()] });
    } else if (!episode.twin.world.tables.has(table)) {
      writeJson(response, 404, { error: 'not_found', message: `the episode has no table "${table}"` });
    } else {
      const records = episode.state.ids(table).flatMap((id) => episode.state.get(table, id) ?? []);
      writeJson(response, 200, { table, records });
    }
  } else if (method === 'GET' && action === 'log') {
    // The whole log as judging reads it: what happened in the products' terms, record changes and refusals.
    const after = Number(new URLSearchParams(query).get('after') ?? 0);
    const logged = await engine.events(tenantId, episodeId, Number.isFinite(after) ? after : 0);
    const judged = logged.filter(
      ({ event }) => event.type === 'domain' || event.type === 'operation.refused' || event.type.startsWith('record.'),
    );
    writeJson(response, 200, { entries: judged.map(({ seq, at, actor, event }) => ({ seq, at, actor, event })) });
  } else if (method === 'POST' && action === 'credentials') {
    // A persona's token, asked for by the worker with the operator key: secrets never travel in workflow inputs.
    const request = parseJson(credentialRequest, body, response);
    if (request) {
      const token = await engine.issueToken(tenantId, episodeId, request, operator);
      writeJson(
        response,
        token ? 200 : 404,
        token
          ? { service: request.service, principal: request.principal, token }
          : { error: 'not_found', message: `the episode's service "${request.service}" issues no tokens` },
      );
    }
  } else if (method === 'GET' && action === 'events') {
    const params = new URLSearchParams(query);
    const after = Number(params.get('after') ?? 0);
    const logged = await engine.events(tenantId, episodeId, Number.isFinite(after) ? after : 0);
    // `page=1`: at most a page's worth (`logPage`), so what a workflow records of one read stays far below Temporal's
    // payload limit however much the agent did since it last read; `more` says to read on from `lastSeq`.
    const page = params.get('page') === '1' ? pageOfLog(logged) : logged;
    writeJson(response, 200, {
      events: domainEventsOf(page),
      lastSeq: page.length > 0 ? page[page.length - 1].seq : after,
      ...(page !== logged ? { more: page.length < logged.length } : {}),
    });
  } else if (method === 'POST' && action === 'clock') {
    const request = parseJson(clockRequest, body, response);
    if (request) {
      const episode = await engine.episode(tenantId, episodeId);
      try {
        const now = await episode.advanceClock(request.at, request.key);
        writeJson(response, 200, { ...describe(episode), now });
      } catch (error) {
        if (!(error instanceof ClockError)) {
          throw error;
        }
        writeJson(response, 409, { error: 'clock_backwards', message: error.message });
      }
    }
  } else {
    writeJson(response, 405, { error: 'method_not_allowed', message: `${method} is not allowed on ${path}` });
  }
};

const describe = (episode: Awaited<ReturnType<TwinEngine['episode']>>) => ({
  id: episode.id,
  stackVersion: episode.descriptor.stackVersion,
  seed: episode.descriptor.seed,
  sizes: episode.descriptor.sizes,
  seq: episode.state.seq,
  now: episode.now(),
  services: [...episode.twin.services.keys()],
  faults: episode.descriptor.faults ?? null,
  closed: episode.state.closed,
  forkedFrom: episode.descriptor.forkedFrom ?? null,
  scenario: episode.descriptor.scenario ?? null,
});
