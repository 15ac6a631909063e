import type { ResourceShape } from '@libs/openapi-schemas';

import type { TwinResponse } from '../twin-http';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The answer with a record's later changes laid over it, when it shows that record (bare, or in the resource's
 * envelope, by id): the pre-serialised text is dropped, since it no longer says what the body says.
 */
export const patchResponse = (
  response: TwinResponse,
  shape: ResourceShape,
  id: string,
  changes: Record<string, unknown>,
): TwinResponse => {
  const body = response.body;
  const shows = (value: unknown): value is Record<string, unknown> =>
    isObject(value) && String(value[shape.idField]) === id;
  let patched: unknown;
  if (shows(body)) {
    patched = { ...body, ...changes };
  } else if (shape.itemEnvelope && isObject(body)) {
    const inner = body[shape.itemEnvelope];
    if (!shows(inner)) {
      return response;
    }
    patched = { ...body, [shape.itemEnvelope]: { ...inner, ...changes } };
  } else {
    return response;
  }
  const { text: _text, textBytes: _bytes, ...rest } = response;
  return { ...rest, body: patched };
};
