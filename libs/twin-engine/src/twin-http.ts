import { stringifyExact } from './exact-integers';

/**
 * Requests and responses as plain data. The HTTP gateway and the MSW handlers both translate to these, so the twin's
 * behaviour is written once and the gateway's hot path never builds Fetch objects.
 */
export interface TwinRequest {
  method: string;
  /** Path relative to the service's base path, without the query string, e.g. `/suppliers/42`. */
  path: string;
  query: URLSearchParams;
  /** The raw query string when the transport has it (saves re-serialising `query` for memo keys). */
  search?: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body?: Buffer;
}

export interface TwinResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON value (serialised by the transport), a string, or nothing. */
  body?: unknown;
  /** When set, the transport holds the request open this long before answering (latency or timeout faults). */
  delayMs?: number;
  /** The body already serialised, when the twin could build it from cached record JSON (the read hot path). */
  text?: string;
  /** `text`'s UTF-8 length when already known (cached with it). */
  textBytes?: number;
}

export const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}): TwinResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

export const emptyResponse = (status: number, headers: Record<string, string> = {}): TwinResponse => ({
  status,
  headers,
});

/** The body as the transport sends it: JSON serialised, strings as UTF-8. */
export const serializeBody = (response: TwinResponse): Buffer | string | undefined => {
  if (response.text !== undefined) {
    return response.text;
  }
  if (response.body === undefined) {
    return undefined;
  }
  const type = response.headers['content-type'] ?? '';
  return typeof response.body === 'string' && !/json/i.test(type) ? response.body : stringifyExact(response.body);
};

export const maxRequestBodyBytes = 1024 * 1024;
