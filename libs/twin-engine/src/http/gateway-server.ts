import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

import { EpisodeNotFoundError, StackVersionNotFoundError, TwinEngine } from '../twin-engine';
import { BodyTooLargeError, readBody, toTwinRequest, writeJson, writeResponse } from './node-adapter';
import { handleAdmin } from './admin-routes';

export interface GatewayLog {
  error(message: string): void;
}

const splitUrl = (url: string): { path: string; query: string } => {
  const index = url.indexOf('?');
  return index === -1 ? { path: url, query: '' } : { path: url.slice(0, index), query: url.slice(index + 1) };
};

/** A service's spec paths may be prefixed by its base path (`/api/v1`); both forms reach the same operation. */
const stripBase = (path: string, basePath: string): string =>
  basePath && (path === basePath || path.startsWith(`${basePath}/`)) ? path.slice(basePath.length) || '/' : path || '/';

/**
 * Maps failures to answers: a missing episode or stack is the caller's 404, an oversized body 413; anything else is
 * a 500 whose cause is logged under an id and never sent.
 */
const fail = (response: ServerResponse, error: unknown, log: GatewayLog): void => {
  if (error instanceof EpisodeNotFoundError || error instanceof StackVersionNotFoundError) {
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
 * The twin gateway: `/e/{episodeId}/{service}/…` reaches a service of an episode, `/_mirror/…` manages episodes.
 * Plain `node:http` on purpose: the hot path is route → state → JSON, with no framework or Fetch objects between.
 */
export const createGatewayServer = (engine: TwinEngine, tenantId: string, log: GatewayLog): Server =>
  createServer((request, response) => {
    void serveGateway(engine, tenantId, request, response).catch((error: unknown) => fail(response, error, log));
  });

const serveGateway = async (
  engine: TwinEngine,
  tenantId: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> => {
  const { path, query } = splitUrl(request.url ?? '/');
  if (path.startsWith('/_mirror/')) {
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
  const [episode, body] = await Promise.all([engine.episode(episodeId), readBody(request)]);
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
  episodeId: string,
  serviceName: string,
  log: GatewayLog,
): Server =>
  createServer((request, response) => {
    const { path, query } = splitUrl(request.url ?? '/');
    const url = `http://${request.headers.host ?? 'localhost'}${path}`;
    const ready = engine.loadedEpisode(episodeId);
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
      const [episode, body] = await Promise.all([engine.episode(episodeId), readBody(request)]);
      const relative = stripBase(path, episode.twin.services.get(serviceName)?.basePath ?? '');
      writeResponse(response, await episode.handle(serviceName, toTwinRequest(request, relative, query, body), url));
    })().catch((error: unknown) => fail(response, error, log));
  });
