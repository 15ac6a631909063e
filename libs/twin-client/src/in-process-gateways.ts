import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Gateways this process serves itself, by the URL its clients use. A call to one is handed to the server's own
 * request listeners (the gateway's handler behind its telemetry, exactly what a socket would reach) without the
 * loopback: no connection, no HTTP written and parsed twice each way. In a process hosting its own twins (`mirror
 * run`, `check`, `rollout`) that hop cost about a tenth of an episode's CPU. The server still listens for everyone
 * else (agents over HTTP, other processes); nothing changes for them.
 */
const served = new Map<string, Server>();

/** Serves calls to `url` from `server` in this process until the returned function is called. */
export const serveInProcess = (url: string, server: Server): (() => void) => {
  const origin = new URL(url).origin;
  served.set(origin, server);
  return () => {
    if (served.get(origin) === server) {
      served.delete(origin);
    }
  };
};

/** The headers Node's fetch adds to every request, so the twins see the same request either way. */
const fetchDefaults: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/** What a twin call reads of an answer; a Fetch `Response` is one, and so is an answer given in process. */
export interface GatewayAnswer {
  status: number;
  ok: boolean;
  text(): Promise<string>;
}

/** The part of `ServerResponse` the gateway writes through: a status, a head and one body, then `close`. */
class InProcessResponse extends EventEmitter {
  statusCode = 200;
  destroyed = false;
  headersSent = false;

  constructor(private readonly answer: (response: GatewayAnswer) => void) {
    super();
  }

  writeHead(status: number): this {
    this.statusCode = status;
    this.headersSent = true;
    return this;
  }

  end(body?: string | Buffer): this {
    const status = this.statusCode;
    // As `Response.text()` reads a body: UTF-8, a byte-order mark dropped.
    const text =
      body === undefined ? '' : typeof body === 'string' ? body.replace(/^\uFEFF/, '') : decoder.decode(body);
    this.answer({ status, ok: status >= 200 && status < 300, text: () => Promise.resolve(text) });
    this.emit('finish');
    this.emit('close');
    return this;
  }
}

const decoder = new TextDecoder();

/**
 * `fetch` of `path` on a gateway this process serves, or undefined when it serves none at that URL. The request is
 * what fetch would send: the same headers (names in lower case, as Node's parser gives them), a `host` of the URL,
 * the body's `content-length`.
 */
export const fetchInProcess = (
  gateway: string,
  path: string,
  init: RequestInit,
): Promise<GatewayAnswer> | undefined => {
  const origin = gateway.startsWith('http') ? new URL(gateway).origin : gateway;
  const server = served.get(origin);
  if (!server) {
    return undefined;
  }
  const prefix = gateway.slice(origin.length);
  const body =
    init.body === undefined || init.body === null ? undefined : Buffer.from(init.body as string | Uint8Array);
  const headers: Record<string, string> = { host: new URL(origin).host, connection: 'keep-alive', ...fetchDefaults };
  for (const [name, value] of new Headers(init.headers)) {
    headers[name] = value;
  }
  if (body !== undefined) {
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve) => {
    const request = Object.assign(Readable.from(body === undefined ? [] : [body], { objectMode: false }), {
      method: (init.method ?? 'GET').toUpperCase(),
      url: `${prefix}${path}`,
      headers,
    });
    server.emit(
      'request',
      request as unknown as IncomingMessage,
      new InProcessResponse(resolve) as unknown as ServerResponse,
    );
  });
};
