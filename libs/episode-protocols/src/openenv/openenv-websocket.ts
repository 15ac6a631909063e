import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

import { RawData, WebSocket, WebSocketServer } from 'ws';

import { ControlPlaneAdmission, ControlPlaneCaller } from '@libs/agent-tools';

import { httpErrorAnswer } from '../protocol-errors';
import { hostRefusal } from '../request-origin';
import { OpenEnvEpisode, OpenEnvFacade } from './openenv-facade';

const WS_PATH = /^\/openenv\/([^/?#]+)\/ws(?:[?#]|$)/;

/** Largest message a session accepts: OpenEnv actions are small; the cap keeps a socket from holding memory hostage. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * OpenEnv's persistent session, `/openenv/{env}/ws`: what its `EnvClient` (and `GenericEnvClient`, `MCPToolClient`)
 * speak. One connection holds one episode at a time: `reset` starts one (finishing the one it held), `step` acts on it,
 * `state` reads it, `mcp` carries OpenEnv's JSON-RPC, `close` or a dropped connection finishes it (OpenEnv destroys a
 * session's environment when its socket closes; Mirror grades what was done). The episode's token never has to travel:
 * the connection that started the episode is the one that may act on it. Starting one takes what the episode API's
 * start takes (`admit`, with the upgrade's `Authorization`): a socket without it is refused at the upgrade, and one
 * attached to a session by its handle may act in that session's episode but start no other.
 */
export const attachOpenEnvWebSocket = (
  server: Server,
  facade: OpenEnvFacade,
  options: {
    mcpUrl: (request: IncomingMessage, episodeId: string) => string;
    allowedHostnames: string[];
    onError: (error: unknown) => void;
    admit: ControlPlaneAdmission;
  },
): WebSocketServer => {
  const { mcpUrl, allowedHostnames, onError, admit } = options;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = WS_PATH.exec(request.url ?? '');
    if (match?.[1] === undefined) {
      return;
    } // Another upgrade route's, not ours.
    const refusal = hostRefusal(request.headers, allowedHostnames);
    if (refusal !== undefined) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\n${refusal}\n`);
      return;
    }
    const environment = decodeURIComponent(match[1]);
    try {
      facade.environment(environment);
    } catch {
      socket.end(`HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\nno environment '${environment}'\n`);
      return;
    }
    // OpenEnv's MCPToolClient attaches its socket to the HTTP MCP session it created (`?session_id=`).
    const sessionId = new URL(request.url ?? '/', 'http://localhost').searchParams.get('session_id') ?? undefined;
    if (sessionId !== undefined && facade.session(sessionId) === undefined) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\nunknown session_id\n');
      return;
    }
    const authorization = request.headers.authorization;
    const mayStart = () => admit(authorization, 'episodes:run', environment);
    const upgrade = () =>
      sockets.handleUpgrade(request, socket, head, (ws) =>
        openSession(
          ws,
          facade,
          { environment, sessionId, mayStart, mcpUrl: (episodeId) => mcpUrl(request, episodeId) },
          onError,
        ),
      );
    if (sessionId !== undefined) {
      upgrade();
      return;
    }
    mayStart().then(upgrade, (error: unknown) => {
      let answer;
      try {
        answer = httpErrorAnswer(error);
      } catch {
        onError(error);
        socket.end('HTTP/1.1 500 Internal Server Error\r\n\r\n');
        return;
      }
      const headers = Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.end(
        `HTTP/1.1 ${answer.status} ${answer.status === 401 ? 'Unauthorized' : answer.status === 403 ? 'Forbidden' : 'Not Found'}\r\n` +
          `Content-Type: application/json\r\n${headers.join('')}\r\n${JSON.stringify(answer.body)}\n`,
      );
    });
  });
  server.on('close', () => sockets.close());
  return sockets;
};

const openSession = (
  ws: WebSocket,
  facade: OpenEnvFacade,
  at: {
    environment: string;
    sessionId?: string;
    /** Resolves to who starts them when this socket may start episodes (throws the refusal otherwise). */
    mayStart: () => Promise<ControlPlaneCaller | undefined>;
    mcpUrl: (episodeId: string) => string;
  },
  onError: (error: unknown) => void,
): void => {
  const { environment, sessionId, mayStart, mcpUrl } = at;
  // Attached to an HTTP MCP session, the socket acts on that session's episode, and leaves closing it to the session.
  let episode: OpenEnvEpisode | undefined = sessionId === undefined ? undefined : facade.session(sessionId);
  // Messages are answered in the order they came: each waits for the one before.
  let queue = Promise.resolve();

  const finishHeld = async (): Promise<void> => {
    const held = episode;
    episode = undefined;
    if (held !== undefined) {
      await facade.close(held).catch(() => undefined);
    }
  };

  const answer = async (raw: string): Promise<Record<string, unknown> | undefined> => {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch (error) {
      return wsError('INVALID_JSON', `Invalid JSON: ${(error as Error).message}`);
    }
    const { type, data = {} } = (typeof message === 'object' && message !== null ? message : {}) as Record<
      string,
      unknown
    >;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return wsError('VALIDATION_ERROR', "a message's 'data' must be an object");
    }
    const body = data as Record<string, unknown>;
    switch (type) {
      case 'reset': {
        const caller = await mayStart();
        await finishHeld();
        const started = await facade.reset(environment, body, mcpUrl, caller);
        episode = started.episode;
        if (sessionId !== undefined) {
          facade.rebindSession(sessionId, episode);
        }
        return { type: 'observation', data: started.result };
      }
      case 'step':
        if (episode === undefined) {
          return wsError('NO_EPISODE', 'no episode yet: send a reset first');
        }
        return { type: 'observation', data: await facade.step(episode, body) };
      case 'state':
        return {
          type: 'state',
          data: episode === undefined ? { episode_id: null, step_count: 0 } : await facade.state(episode),
        };
      case 'mcp': {
        const caller = body.method === 'openenv/session/create' ? await mayStart() : undefined;
        const { answer: rpc, created } = await facade.mcp(environment, episode, body, mcpUrl, caller);
        if (created !== undefined) {
          await finishHeld();
          episode = created;
        }
        return { type: 'mcp', data: rpc };
      }
      case 'close':
        await finishHeld();
        ws.close(1000);
        return undefined;
      default:
        return wsError('UNKNOWN_TYPE', `Unknown message type: ${JSON.stringify(type)}`);
    }
  };

  ws.on('message', (raw, isBinary) => {
    queue = queue.then(async () => {
      let reply: Record<string, unknown> | undefined;
      try {
        reply = isBinary ? wsError('INVALID_JSON', 'messages are JSON text') : await answer(rawText(raw));
      } catch (error) {
        reply = errorReply(error, onError);
      }
      if (reply !== undefined && ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify(reply));
      }
    });
  });
  ws.on('close', () => {
    if (sessionId === undefined) {
      queue = queue.then(finishHeld);
    }
  });
};

const rawText = (raw: RawData): string =>
  Array.isArray(raw) ? Buffer.concat(raw).toString('utf8') : Buffer.from(raw as ArrayBuffer).toString('utf8');

const wsError = (code: string, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'error',
  data: { message, code, ...extra },
});

const errorReply = (error: unknown, onError: (error: unknown) => void): Record<string, unknown> => {
  try {
    const answer = httpErrorAnswer(error);
    return wsError(answer.body.error.code, answer.body.error.message, { status: answer.status });
  } catch {
    onError(error);
    return wsError('EXECUTION_ERROR', 'internal error');
  }
};
