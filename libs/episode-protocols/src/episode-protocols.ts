import type { IncomingMessage, Server } from 'node:http';

import * as express from 'express';

import { ControlPlaneAdmission, ControlPlaneCaller, EpisodeLifecyclePort } from '@libs/agent-tools';

import { createEpisodeMcpEndpoint } from './mcp/episode-mcp-endpoint';
import { OpenEnvEpisode, OpenEnvFacade } from './openenv/openenv-facade';
import { attachOpenEnvWebSocket } from './openenv/openenv-websocket';
import { bearerToken, httpErrorAnswer, missingTokenError, ProtocolRequestError } from './protocol-errors';
import { defaultAllowedHostnames, hostRefusal } from './request-origin';

export interface EpisodeProtocolsOptions {
  /** Reported as the MCP server's and OpenEnv environment's version. */
  version?: string;
  /**
   * Host names the protocols answer to (the `Host` header, and a browser's `Origin`); localhost by default. Add the
   * machine's name when trainers reach it from elsewhere.
   */
  allowedHostnames?: string[];
  /** Errors that are not the caller's (a port bug, a broken socket): the app logs them; callers get a bare 500. */
  onError?: (error: unknown) => void;
  /**
   * Who may read the environments and start episodes through the protocols: the episode API's own rule for its
   * control-plane routes (an API key with the permission, of the tenant the server hosts; anyone on `mirror up`).
   * Acting in a started episode takes that episode's token (or session) either way.
   */
  admit: ControlPlaneAdmission;
}

export interface EpisodeProtocols {
  /** Express routes: `/v1/episodes/:id/mcp` and `/openenv/:env/{health,metadata,schema,reset,step,state,mcp}`. */
  router: express.Router;
  /** OpenEnv's WebSocket session (`/openenv/:env/ws`) on the app's HTTP server. */
  attachWebSocket(server: Server): void;
}

/**
 * The outside agent's protocols over the episode lifecycle port: MCP per episode and the OpenEnv façade. The api app
 * mounts the router and attaches the WebSocket; nothing here knows where the episodes live.
 */
export const createEpisodeProtocols = (
  port: EpisodeLifecyclePort,
  options: EpisodeProtocolsOptions,
): EpisodeProtocols => {
  const { admit } = options;
  const onError = options.onError ?? (() => undefined);
  const mcp = createEpisodeMcpEndpoint(port, { version: options.version, onError });
  const openEnv = new OpenEnvFacade(port, options.version);
  const router = express.Router();
  const json = express.json({ limit: '4mb', strict: false });
  const allowedHostnames = options.allowedHostnames ?? defaultAllowedHostnames();

  router.use(['/v1/episodes/:id/mcp', '/openenv'], (request, response, next) => {
    const refusal = hostRefusal(request.headers, allowedHostnames);
    if (refusal === undefined) {
      next();
      return;
    }
    response.status(403).json({ error: { code: 'host_not_allowed', message: refusal } });
  });

  router.all('/v1/episodes/:id/mcp', (request, response, next) => {
    mcp(request, response, String(request.params.id)).catch(next);
  });

  const openEnvRoute = '/openenv/:env';
  const env = (request: express.Request): string => String(request.params.env);
  /** Holds a control-plane route to the episode API's rule, before its body is read. */
  const admitted =
    (permission: 'environments:read' | 'episodes:run'): express.RequestHandler =>
    (request, response, next) => {
      admit(request.headers.authorization, permission, env(request)).then((caller) => {
        response.locals.caller = caller;
        next();
      }, next);
    };
  router.get(`${openEnvRoute}/health`, admitted('environments:read'), (request, response) => {
    openEnv.environment(env(request));
    response.json({ status: 'healthy' });
  });
  router.get(`${openEnvRoute}/metadata`, admitted('environments:read'), (request, response) => {
    response.json(openEnv.metadata(env(request)));
  });
  router.get(`${openEnvRoute}/schema`, admitted('environments:read'), (request, response) => {
    response.json(openEnv.schema(env(request)));
  });
  router.post(`${openEnvRoute}/reset`, admitted('episodes:run'), json, async (request, response) => {
    const { result } = await openEnv.reset(
      env(request),
      objectBody(request.body, 'reset'),
      (id) => mcpUrl(request, id),
      response.locals.caller as ControlPlaneCaller | undefined,
    );
    response.json(result);
  });
  router.post(`${openEnvRoute}/step`, json, async (request, response) => {
    const body = objectBody(request.body, 'step');
    openEnv.environment(env(request));
    response.json(await openEnv.step(httpEpisode(request, body.episode_id), body.action));
  });
  router.get(`${openEnvRoute}/state`, async (request, response) => {
    openEnv.environment(env(request));
    response.json(await openEnv.state(httpEpisode(request, request.query.episode_id)));
  });
  router.post(`${openEnvRoute}/mcp`, json, async (request, response) => {
    const body = objectBody(request.body, 'mcp');
    // A new session starts an episode, as reset does: the caller's bearer is an API key here.
    const caller =
      body.method === 'openenv/session/create'
        ? await admit(request.headers.authorization, 'episodes:run', env(request))
        : undefined;
    const params = body.params as Record<string, unknown> | undefined;
    const sessionId = typeof params === 'object' && params !== null ? params.session_id : undefined;
    const token = bearerToken(request.headers.authorization);
    const episode = typeof sessionId === 'string' && token !== undefined ? { episodeId: sessionId, token } : undefined;
    const { answer } = await openEnv.mcp(env(request), episode, body, (id) => mcpUrl(request, id), caller);
    response.json(answer);
  });

  // Express 5 passes rejected promises here; ports' and our own refusals become their documented answers.
  router.use((error: unknown, request: express.Request, response: express.Response, next: express.NextFunction) => {
    if (response.headersSent) {
      return next(error);
    }
    const episodeId = typeof request.params.id === 'string' ? request.params.id : undefined;
    let answer;
    try {
      answer = httpErrorAnswer(bodyParserError(error), episodeId);
    } catch {
      onError(error);
      response.status(500).json({ error: { code: 'internal_error', message: 'internal error' } });
      return;
    }
    response.status(answer.status).set(answer.headers).json(answer.body);
  });

  return {
    router,
    attachWebSocket: (server) => {
      attachOpenEnvWebSocket(server, openEnv, { mcpUrl, allowedHostnames, onError, admit });
    },
  };
};

/** Where the episode speaks MCP, as the caller reached this server. */
const mcpUrl = (request: IncomingMessage, episodeId: string): string => {
  const host = request.headers.host ?? 'localhost';
  return `http://${host}/v1/episodes/${encodeURIComponent(episodeId)}/mcp`;
};

const objectBody = (body: unknown, route: string): Record<string, unknown> => {
  if (body === undefined) {
    return {};
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProtocolRequestError('invalid_body', 422, `the ${route} body must be a JSON object`);
  }
  return body as Record<string, unknown>;
};

/** OpenEnv's HTTP routes are stateless; an episode over HTTP is named by its id and opened by its token. */
const httpEpisode = (request: express.Request, episodeId: unknown): OpenEnvEpisode => {
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) {
    throw missingTokenError();
  }
  if (typeof episodeId !== 'string' || episodeId === '') {
    throw new ProtocolRequestError('episode_id_required', 422, "name the episode: 'episode_id' (reset's metadata)");
  }
  return { episodeId, token };
};

/** body-parser's refusals (not JSON, too large) are the caller's: 400 and 413, never 500. */
const bodyParserError = (error: unknown): unknown => {
  const status = (error as { status?: unknown; type?: unknown } | null)?.status;
  if (status === 400) {
    return new ProtocolRequestError('invalid_json', 400, 'the body is not valid JSON');
  }
  if (status === 413) {
    return new ProtocolRequestError('body_too_large', 413, 'the body is larger than 4 MB');
  }
  return error;
};
