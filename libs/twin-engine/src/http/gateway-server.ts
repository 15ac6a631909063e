import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

import { EpisodeNotFoundError, ScenarioNotFoundError, StackVersionNotFoundError, TwinEngine } from '../twin-engine';
import { BodyTooLargeError, readBody, toTwinRequest, writeJson, writeResponse } from './node-adapter';
import { handleAdmin } from './admin-routes';

export interface GatewayLog {
  error(message: string): void;
}

const splitUrl = (url: string): { path: string; query: string } => {
  const index = url.indexOf('?');
  return index === -1 ? { path: url, query: '' } : { path: url.slice(0, index), query: url.slice(index + 1) };
};

/**
 * A path that could mean another route once some client or proxy normalises it: a `.` or `..` segment, plain or
 * percent-encoded (`%2e%2e`), an encoded slash or backslash, or a backslash. Refused whole (400), never resolved.
 */
export const isTraversal = (path: string): boolean =>
  path.split('/').some((segment) => {
    if (segment.includes('\\') || /%(2f|5c)/i.test(segment)) {
      return true;
    }
    try {
      const decoded = decodeURIComponent(segment);
      return decoded === '.' || decoded === '..';
    } catch {
      // A broken escape cannot spell a dot segment; the twin refuses it in its own API's error shape.
      return false;
    }
  });

const traversalMessage = 'the path has a dot segment or an encoded slash: name the resource by its own path';

const refuseTraversal = (response: ServerResponse): void =>
  writeJson(response, 400, {
    error: 'invalid_path',
    message: traversalMessage,
  });

/**
 * At a service's own origin nothing lies outside the twin, so the same refusal is the twin's own: a client of the
 * API (or its SDK) reads it in the API's error shape, for the operation the path names when it names one.
 */
const refuseTraversalAsTwin = async (
  engine: TwinEngine,
  tenantId: string,
  episodeId: string,
  serviceName: string,
  method: string,
  path: string,
  response: ServerResponse,
): Promise<void> => {
  const episode = engine.loadedEpisode(tenantId, episodeId) ?? (await engine.episode(tenantId, episodeId));
  const twin = episode.twin.services.get(serviceName);
  if (!twin) {
    refuseTraversal(response);
    return;
  }
  const found = twin.route(method, stripBase(path, twin.basePath));
  const match = 'plan' in found ? found : undefined;
  writeResponse(response, twin.errorResponse(400, 'invalid_path', traversalMessage, match));
};

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries the operator key as `Authorization: Bearer …`, compared in constant time. */
const isOperator = (request: IncomingMessage, operatorKey: Buffer): boolean => {
  const header = request.headers.authorization;
  return (
    typeof header === 'string' &&
    header.startsWith('Bearer ') &&
    timingSafeEqual(digest(header.slice('Bearer '.length).trim()), operatorKey)
  );
};

/**
 * Puts an attempt on an episode's operator surface on that episode's record, when the path names one that exists; the
 * caller already has its answer, and an unknown episode (or a failing store) leaves nothing to record.
 */
const onRecord = async (
  engine: TwinEngine,
  tenantId: string,
  episodeId: string | undefined,
  operationId: string,
  status: number,
  reason: string,
): Promise<void> => {
  if (!episodeId) {
    return;
  }
  const episode = await engine.episode(tenantId, episodeId).catch(() => undefined);
  await episode?.recordOperatorAttempt(operationId, status, reason.slice(0, 300)).catch(() => undefined);
};

/** A service's spec paths may be prefixed by its base path (`/api/v1`); both forms reach the same operation. */
const stripBase = (path: string, basePath: string): string =>
  basePath && (path === basePath || path.startsWith(`${basePath}/`)) ? path.slice(basePath.length) || '/' : path || '/';

/**
 * Maps failures to answers: a missing episode, stack or scenario is the caller's 404, an oversized body 413; anything else is
 * a 500 whose cause is logged under an id and never sent.
 */
const fail = (response: ServerResponse, error: unknown, log: GatewayLog): void => {
  if (
    error instanceof EpisodeNotFoundError ||
    error instanceof StackVersionNotFoundError ||
    error instanceof ScenarioNotFoundError
  ) {
    writeJson(response, 404, { error: 'not_found', message: error.message });
  } else if (error instanceof BodyTooLargeError) {
    writeJson(response, 413, { error: 'payload_too_large', message: error.message });
  } else {
    const errorId = randomUUID();
    log.error(`${errorId}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    writeJson(response, 500, { error: 'internal_error', message: 'internal error', errorId });
  }
};

/**
 * Idle keep-alive connections are left for the client to close (undici after 4 s, SDK pools within a minute): a server
 * that closes one at its own 5 s default races a client writing its next request on that socket, which then fails
 * with ECONNRESET and is not retried for a POST (seen for a large insert on a loaded machine).
 */
export const outlastClientKeepAlive = (server: Server): Server => {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
};

/**
 * The twin gateway: `/e/{episodeId}/{service}/…` reaches a service of an episode, `/_mirror/…` manages episodes for
 * whoever holds the operator key (`MIRROR_OPERATOR_KEY`): an agent, who has only its twins' base URLs and tokens,
 * gets a 401 there, and no twin path reaches it (dot segments and encoded slashes are refused with a 400).
 * Plain `node:http` on purpose: the hot path is route → state → JSON, with no framework or Fetch objects between.
 */
export const createGatewayServer = (
  engine: TwinEngine,
  tenantId: string,
  log: GatewayLog,
  operatorKey: string,
): Server => outlastClientKeepAlive(createServer(gatewayRequestHandler(engine, tenantId, log, operatorKey)));

/** The gateway's request handler, for a process that owns its server (the gateway app drains it on SIGTERM). */
export const gatewayRequestHandler = (
  engine: TwinEngine,
  tenantId: string,
  log: GatewayLog,
  operatorKey: string,
): ((request: IncomingMessage, response: ServerResponse) => void) => {
  if (operatorKey.length < 16) {
    throw new Error('the operator key must have at least 16 characters');
  }
  const key = digest(operatorKey);
  return (request, response) => {
    void serveGateway(engine, tenantId, key, request, response).catch((error: unknown) => fail(response, error, log));
  };
};

const serveGateway = async (
  engine: TwinEngine,
  tenantId: string,
  operatorKey: Buffer,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> => {
  const { path, query } = splitUrl(request.url ?? '/');
  if (isTraversal(path)) {
    request.resume();
    refuseTraversal(response);
    await onRecord(
      engine,
      tenantId,
      /^\/e\/([^/]+)\//.exec(path)?.[1],
      'twin.traversal',
      400,
      `a twin path that leaves its twin: ${path}`,
    );
    return;
  }
  if (path === '/_mirror/health') {
    request.resume();
    writeJson(response, 200, { status: 'ok' });
    return;
  }
  if (path === '/_mirror' || path.startsWith('/_mirror/')) {
    if (!isOperator(request, operatorKey)) {
      request.resume();
      writeJson(response, 401, { error: 'unauthorized', message: 'operator routes need the operator key' });
      const [, episodeId, action = 'episode'] = /^\/_mirror\/episodes\/([^/]+)(?:\/([^/]+))?/.exec(path) ?? [];
      await onRecord(
        engine,
        tenantId,
        episodeId,
        `operator.${action}`,
        401,
        `${request.method ?? 'GET'} ${path} without the operator key`,
      );
      return;
    }
    const body = await readBody(request);
    await handleAdmin(engine, tenantId, request.method ?? 'GET', path.slice('/_mirror'.length), body, response, query);
    return;
  }
  const match = /^\/e\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
  if (!match) {
    writeJson(response, 404, {
      error: 'not_found',
      message: `${path} is not a twin route; use /e/{episodeId}/{service}/…`,
    });
    return;
  }
  const [, episodeId, serviceName, rest = '/'] = match;
  const [episode, body] = await Promise.all([engine.episode(tenantId, episodeId), readBody(request)]);
  const service = episode.twin.services.get(serviceName);
  const relative = stripBase(rest, service?.basePath ?? '');
  const url = `http://${request.headers.host ?? 'localhost'}${path}`;
  writeResponse(response, await episode.handle(serviceName, toTwinRequest(request, relative, query, body), url));
};

/**
 * One service of one episode at the root of an origin of its own, because many vendor SDKs let a user change only
 * the host, not the path.
 */
export const createServiceOriginServer = (
  engine: TwinEngine,
  tenantId: string,
  episodeId: string,
  serviceName: string,
  log: GatewayLog,
): Server =>
  outlastClientKeepAlive(
    createServer((request, response) => {
      const { path, query } = splitUrl(request.url ?? '/');
      if (isTraversal(path)) {
        request.resume();
        void refuseTraversalAsTwin(
          engine,
          tenantId,
          episodeId,
          serviceName,
          request.method ?? 'GET',
          path,
          response,
        ).catch((error: unknown) => fail(response, error, log));
        return;
      }
      const url = `http://${request.headers.host ?? 'localhost'}${path}`;
      const ready = engine.loadedEpisode(tenantId, episodeId);
      if (ready && (request.method === 'GET' || request.method === 'HEAD')) {
        // The hot path: a read of an episode in memory is answered without a promise in between.
        request.resume();
        const relative = stripBase(path, ready.twin.services.get(serviceName)?.basePath ?? '');
        try {
          const answer = ready.dispatch(serviceName, toTwinRequest(request, relative, query, undefined), url);
          if (answer instanceof Promise) {
            answer.then((twin) => writeResponse(response, twin)).catch((error: unknown) => fail(response, error, log));
          } else {
            writeResponse(response, answer);
          }
        } catch (error) {
          fail(response, error, log);
        }
        return;
      }
      void (async () => {
        const [episode, body] = await Promise.all([engine.episode(tenantId, episodeId), readBody(request)]);
        const relative = stripBase(path, episode.twin.services.get(serviceName)?.basePath ?? '');
        writeResponse(response, await episode.handle(serviceName, toTwinRequest(request, relative, query, body), url));
      })().catch((error: unknown) => fail(response, error, log));
    }),
  );
