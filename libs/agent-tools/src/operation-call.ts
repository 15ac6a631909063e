import * as qs from 'qs';

import { placeCredential } from '@libs/openapi-schemas';
import { traceHeadersFor } from '@libs/telemetry';

import type { ArgumentPlacement, ToolDefinition } from './tool-contract';

export interface OperationEndpoint {
  /** The service's base URL as the agent reaches it (the gateway's episode route and the spec's base path). */
  baseUrl: string;
  /** The agent's own token for the service, sent where each operation's spec takes it. */
  token: string;
}

export interface OperationObservation {
  isError: boolean;
  structured: Record<string, unknown>;
  text: string;
}

/** A twin answers in milliseconds; a call still waiting after this is reported, not waited on forever. */
const callTimeoutMs = 60_000;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const refused = (message: string): OperationObservation => ({
  isError: true,
  structured: { error: message },
  text: message,
});

const scalarText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : JSON.stringify(value);

interface BuiltRequest {
  url: string;
  init: RequestInit;
}

/** A request the arguments cannot make: reported to the agent, not thrown at the caller. */
class RequestBuildError extends Error {}

/** Fills the path template: each value encoded once, and dot segments refused (they would climb out of the path). */
const fillPath = (template: string, values: Map<string, unknown>): string => {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values.get(name);
    if (value === undefined || value === null || scalarText(value) === '') {
      throw new RequestBuildError(`the path argument "${name}" is missing`);
    }
    const text = scalarText(value);
    if (text === '.' || text === '..') {
      throw new RequestBuildError(`the path argument "${name}" may not be "${text}"`);
    }
    return encodeURIComponent(text);
  });
};

/** Form fields as SDKs write nested values: `metadata[k]=v`, `items[0][price]=…` (bracket notation, by index). */
const formFields = (body: Record<string, unknown>): URLSearchParams => new URLSearchParams(qs.stringify(body));

const encodeBody = (
  contentType: string,
  body: unknown,
): { payload: string | FormData; headers: Record<string, string> } => {
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType) && isPlainObject(body)) {
    return { payload: formFields(body).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  if (/^multipart\/form-data\b/i.test(contentType) && isPlainObject(body)) {
    const form = new FormData();
    formFields(body).forEach((value, key) => form.append(key, value));
    return { payload: form, headers: {} };
  }
  if (/json/i.test(contentType) || typeof body !== 'string') {
    return { payload: JSON.stringify(body), headers: { 'content-type': contentType } };
  }
  return { payload: body, headers: { 'content-type': contentType } };
};

const buildRequest = (
  tool: ToolDefinition,
  args: Record<string, unknown>,
  endpoint: OperationEndpoint,
): BuiltRequest => {
  const target = tool.target;
  if (target.kind !== 'operation') {
    throw new RequestBuildError(`"${tool.name}" is an episode verb, not an operation of a twin`);
  }
  const given = (placement: ArgumentPlacement) => args[placement.argument];
  const pathValues = new Map<string, unknown>();
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  let body: unknown;
  const fields: Record<string, unknown> = {};
  let hasFields = false;
  for (const placement of target.arguments) {
    const value = given(placement);
    if (value === undefined) {
      continue;
    }
    switch (placement.in) {
      case 'path':
        pathValues.set(placement.name, value);
        break;
      case 'query':
        (Array.isArray(value) ? value : [value]).forEach((item) => query.append(placement.name, scalarText(item)));
        break;
      case 'query-map':
        if (isPlainObject(value)) {
          Object.entries(value).forEach(([key, item]) => query.append(key, scalarText(item)));
        }
        break;
      case 'header':
        headers[placement.name.toLowerCase()] = scalarText(value);
        break;
      case 'body':
        body = value;
        break;
      case 'body-field':
        fields[placement.name] = value;
        hasFields = true;
        break;
    }
  }
  const path = fillPath(target.path, pathValues);
  // The agent's token where the operation's spec takes it (a pack's or data table's tools: a bearer token).
  const credential = placeCredential(target.credential ?? [{ in: 'bearer' }], endpoint.token);
  credential.query.forEach(([name, value]) => query.set(name, value));
  const search = query.toString();
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}${path}${search ? `?${search}` : ''}`;
  const content = body !== undefined ? body : hasFields || target.contentType ? fields : undefined;
  const encoded =
    target.contentType && content !== undefined && target.method !== 'get' && target.method !== 'head'
      ? encodeBody(target.contentType, content)
      : undefined;
  return {
    url,
    init: {
      method: target.method.toUpperCase(),
      headers: {
        // The current trace (the tool call's span), so the twin's request joins the episode's trace.
        ...traceHeadersFor(),
        ...headers,
        ...target.headers,
        ...encoded?.headers,
        accept: 'application/json',
        ...credential.headers,
      },
      ...(encoded ? { body: encoded.payload } : {}),
      signal: AbortSignal.timeout(callTimeoutMs),
    },
  };
};

const parsed = (text: string): { json: true; value: unknown } | { json: false } => {
  try {
    return { json: true, value: JSON.parse(text) };
  } catch {
    return { json: false };
  }
};

/**
 * Performs an operation tool against its twin as the agent: the HTTP request its arguments describe, with the
 * agent's own token. The answer is the observation: a JSON object as is, anything else wrapped as `{ result }`; a
 * 4xx/5xx is an error result carrying the twin's status and body. Never throws: a request that cannot be built or
 * sent is an error result saying why.
 */
export const callOperation = async (
  tool: ToolDefinition,
  args: Record<string, unknown>,
  endpoint: OperationEndpoint,
  fetchImpl: typeof fetch = fetch,
): Promise<OperationObservation> => {
  let request: BuiltRequest;
  try {
    request = buildRequest(tool, args, endpoint);
  } catch (error) {
    if (error instanceof RequestBuildError) {
      return refused(error.message);
    }
    throw error;
  }
  let status: number;
  let text: string;
  try {
    const response = await fetchImpl(request.url, request.init);
    status = response.status;
    text = await response.text();
  } catch (error) {
    return refused(`the request to ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const body = text.trim() === '' ? undefined : parsed(text);
  const value = body === undefined ? null : body.json ? body.value : text;
  if (status >= 400) {
    return {
      isError: true,
      structured: { status, body: value },
      text: `HTTP ${status}${text ? `: ${text}` : ''}`,
    };
  }
  if (body === undefined) {
    return { isError: false, structured: { status }, text: `HTTP ${status} (no content)` };
  }
  return {
    isError: false,
    structured: isPlainObject(value) ? value : { result: value },
    text: body.json ? JSON.stringify(body.value) : text,
  };
};
