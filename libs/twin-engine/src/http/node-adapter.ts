import { IncomingMessage, ServerResponse } from 'node:http';

import { maxRequestBodyBytes, serializeBody, TwinRequest, TwinResponse } from '../twin-http';

export class BodyTooLargeError extends Error {}

/** Reads a request body up to the limit; beyond it stops reading and reports, so a 10 MB body costs 1 MB at most. */
export const readBody = (request: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    if (request.method === 'GET' || request.method === 'HEAD') {
      request.resume();
      resolve(undefined);
      return;
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxRequestBodyBytes) {
      request.resume();
      reject(new BodyTooLargeError(`request body of ${declared} bytes exceeds ${maxRequestBodyBytes}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxRequestBodyBytes) {
        request.removeAllListeners('data');
        request.resume();
        reject(new BodyTooLargeError(`request body exceeds ${maxRequestBodyBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(chunks.length > 0 ? Buffer.concat(chunks) : undefined));
    request.on('error', reject);
  });

export const toTwinRequest = (
  request: IncomingMessage,
  path: string,
  query: string,
  body: Buffer | undefined,
): TwinRequest => ({
  method: request.method ?? 'GET',
  path,
  query: new URLSearchParams(query),
  search: query,
  headers: request.headers as Record<string, string | undefined>,
  body,
});

export const writeResponse = (response: ServerResponse, twin: TwinResponse): void => {
  const send = (): void => {
    if (response.destroyed) {
      return;
    }
    const body = serializeBody(twin);
    // Headers as a flat array, which Node writes without building a headers object; a string body (not a Buffer) so
    // Node sends head and body in one write instead of a writev of two chunks.
    const headers: string[] = [];
    for (const name in twin.headers) {
      headers.push(name, twin.headers[name]);
    }
    if (body !== undefined) {
      const bytes = typeof body === 'string' ? (twin.textBytes ?? Buffer.byteLength(body)) : body.length;
      headers.push('content-length', String(bytes));
    }
    response.writeHead(twin.status, headers);
    response.end(body);
  };
  if (twin.delayMs) {
    setTimeout(send, twin.delayMs).unref();
  } else {
    send();
  }
};

export const writeJson = (response: ServerResponse, status: number, body: unknown): void =>
  writeResponse(response, { status, headers: { 'content-type': 'application/json' }, body });
