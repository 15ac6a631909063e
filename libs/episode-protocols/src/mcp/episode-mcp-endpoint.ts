import type { IncomingMessage, ServerResponse } from 'node:http';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';

import { EpisodeLifecyclePort } from '@libs/agent-tools';

import { bearerToken, httpErrorAnswer, missingTokenError } from '../protocol-errors';
import { EpisodeCredentials, episodeMcpServer } from './episode-mcp-server';

/** Serves one HTTP request of `/v1/episodes/{id}/mcp`; the caller routes and passes the episode id from the path. */
export type EpisodeMcpEndpoint = (
  request: IncomingMessage,
  response: ServerResponse,
  episodeId: string,
) => Promise<void>;

/**
 * MCP per episode over Streamable HTTP, stateless: the episode is the URL's, the right to act is the episode-scoped
 * bearer token, and no protocol session is kept. The 2026-07-28 revision is served per request; older clients get the
 * SDK's stateless legacy fallback from the same server factory. The token is checked against the port before the
 * SDK sees the request, so a missing token is a 401 and another episode's a 403 at the HTTP level, as the spec's
 * authorization section expects.
 */
export const createEpisodeMcpEndpoint = (
  port: EpisodeLifecyclePort,
  options: { version?: string; onError?: (error: Error) => void } = {},
): EpisodeMcpEndpoint => {
  const version = options.version ?? '0.1.0';
  const handler = createMcpHandler((context) => episodeMcpServer(port, credentialsOf(context.authInfo), version), {
    legacy: 'stateless',
    onerror: options.onError,
  });
  const serve = toNodeHandler(handler, { onerror: options.onError });

  return async (request, response, episodeId) => {
    const token = bearerToken(request.headers.authorization);
    try {
      if (token === undefined) {
        throw missingTokenError();
      }
      await port.status(episodeId, token);
    } catch (error) {
      const answer = httpErrorAnswer(error, episodeId);
      response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
      return;
    }
    const auth: AuthInfo = { token, clientId: episodeId, scopes: [], extra: { episodeId } };
    await serve(Object.assign(request, { auth }), response);
  };
};

const credentialsOf = (auth: AuthInfo | undefined): EpisodeCredentials => {
  const episodeId = auth?.extra?.episodeId;
  if (auth === undefined || typeof episodeId !== 'string') {
    // Only the endpoint above builds servers, always with credentials; reaching here is a wiring bug, not bad input.
    throw new Error('an episode MCP server was requested without the episode credentials');
  }
  return { episodeId, token: auth.token };
};
