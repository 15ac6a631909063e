import { ControlPlaneAccessError, EpisodeAccessError, EpisodeRequestError } from '@libs/agent-tools';

/** An error as every protocol adapter answers it over HTTP: the REST API's `{ error: { code, message, episode_id? } }`. */
export interface HttpErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: string; message: string; episode_id?: string } };
}

/** A request the adapter itself refuses before reaching the port (a missing field, a wrong type). */
export class ProtocolRequestError extends Error {
  constructor(
    readonly code: string,
    readonly status: 400 | 404 | 413 | 422,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Maps what the ports throw to the documented HTTP answer; anything else is not the caller's fault and is rethrown so
 * the app answers 500 without leaking its message.
 */
export const httpErrorAnswer = (error: unknown, episodeId?: string): HttpErrorAnswer => {
  const body = (code: string, message: string): HttpErrorAnswer['body'] => ({
    error: episodeId === undefined ? { code, message } : { code, message, episode_id: episodeId },
  });
  if (error instanceof EpisodeAccessError) {
    const headers: Record<string, string> =
      error.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="mirror-episode"' } : {};
    return { status: error.status, headers, body: body(error.code, error.message) };
  }
  if (error instanceof ControlPlaneAccessError) {
    const headers: Record<string, string> = error.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="mirror"' } : {};
    return {
      status: error.status,
      headers,
      body: body(error.status === 401 ? 'api_key_invalid' : 'forbidden', error.message),
    };
  }
  if (error instanceof EpisodeRequestError) {
    const headers: Record<string, string> =
      error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
    return { status: error.status, headers, body: body(error.code, error.message) };
  }
  if (error instanceof ProtocolRequestError) {
    return { status: error.status, headers: {}, body: body(error.code, error.message) };
  }
  throw error;
};

/** The bearer token of an `Authorization` header, or undefined when there is none (a 401, never a guess). */
export const bearerToken = (authorization: string | string[] | undefined): string | undefined => {
  const value = Array.isArray(authorization) ? authorization[0] : authorization;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '');
  return match?.[1];
};

/** The 401 every episode endpoint answers without a token. */
export const missingTokenError = (): EpisodeAccessError =>
  new EpisodeAccessError(
    'token_invalid',
    401,
    "this episode needs its bearer token: send 'Authorization: Bearer <token>' (the token POST /v1/episodes returned)",
  );
