import { DocumentValidators, flattenSchema, schemaTypes } from '@libs/openapi-schemas';

import { OperationPlan, ParameterPlan } from './operation-plan';
import { malformedEscape } from './percent-encoding';
import { unstorableText, unstorableValue } from './storable-values';
import { TwinRequest } from './twin-http';

export interface ValidRequest {
  ok: true;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  mediaType?: string;
}

export interface InvalidRequest {
  ok: false;
  status: 400 | 413 | 415 | 422;
  /** The request could not even be read (not JSON, a broken escape): HTTP's 400, whatever the schema would say. */
  syntax?: true;
  message: string;
  /** Each problem with where it is: `path.id`, `query.limit`, `body/lines/0/quantity`. */
  problems: { location: string; message: string }[];
}

const mediaTypeOf = (header: string | undefined): string | undefined =>
  header?.split(';')[0]?.trim().toLowerCase() || undefined;

const mediaMatches = (declared: string, actual: string): boolean => {
  const d = declared.toLowerCase();
  if (d === '*/*' || d === actual) {
    return true;
  }
  const [dType, dSub] = d.split('/');
  const [aType, aSub] = actual.split('/');
  return (
    dType === aType &&
    (dSub === '*' || (dSub?.endsWith('+json') && aSub === 'json') || (aSub?.endsWith('+json') && dSub === 'json'))
  );
};

/** Path and query values arrive as text; the schema says what they mean. */
const coerce = (raw: string, types: string[]): unknown => {
  if (types.includes('integer') && /^-?\d+$/.test(raw)) {
    // Beyond 2^53 a Number is another integer: kept as given, so it is refused rather than silently rounded.
    return Number.isSafeInteger(Number(raw)) ? Number(raw) : raw;
  }
  if (types.includes('number') && raw.trim() !== '' && Number.isFinite(Number(raw))) {
    return Number(raw);
  }
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) {
    return raw === 'true';
  }
  return raw;
};

const readParameter = (parameter: ParameterPlan, request: TwinRequest, pathParams: Record<string, string>): unknown => {
  switch (parameter.in) {
    case 'path':
      return pathParams[parameter.name] === undefined
        ? undefined
        : // Already decoded once by the router: decoding again turned `100%25` into a URIError and `%2525` into `%`.
          coerce(pathParams[parameter.name], parameter.types);
    case 'query': {
      const values = request.query.getAll(parameter.name);
      if (values.length === 0) {
        return undefined;
      }
      if (parameter.types.includes('array')) {
        const items = values.length === 1 ? values[0].split(',') : values;
        return items.map((item) => coerce(item, parameter.itemTypes));
      }
      return coerce(values[values.length - 1], parameter.types);
    }
    case 'header': {
      const value = request.headers[parameter.name.toLowerCase()];
      return value === undefined ? undefined : coerce(value, parameter.types);
    }
    case 'cookie':
      return undefined;
  }
};

/** Headers that transports and clients own; a spec listing them does not make a missing one the caller's fault. */
const transportHeaders = new Set(['content-type', 'accept', 'authorization', 'content-length', 'user-agent', 'host']);

/** Form fields are text; the body schema's property types say which are numbers, booleans or lists. */
const formToObject = (text: string, document: unknown, schemaPointer: string | undefined): Record<string, unknown> => {
  const schema = schemaPointer ? flattenSchema(document, { $ref: `#${schemaPointer}` }) : {};
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const types = key in properties ? schemaTypes(flattenSchema(document, properties[key])) : ['string'];
    const coerced = coerce(value, types);
    const existing = out[key];
    out[key] =
      existing === undefined
        ? types.includes('array')
          ? [coerced]
          : coerced
        : [...(Array.isArray(existing) ? (existing as unknown[]) : [existing]), coerced];
  }
  return out;
};

/**
 * Validates a request against its operation: path, query and header parameters (coerced from text by their
 * schemas), content type, body size and syntax, and the body against its schema. Problems come back located,
 * never thrown, so that every bad request becomes a 4xx.
 */
export const validateRequest = (
  plan: OperationPlan,
  request: TwinRequest,
  pathParams: Record<string, string>,
  validators: DocumentValidators,
  document: unknown,
): ValidRequest | InvalidRequest => {
  const problems: { location: string; message: string }[] = [];
  const malformed = request.search === undefined ? undefined : malformedEscape(request.search.replace(/\+/g, ' '));
  if (malformed !== undefined) {
    // URLSearchParams keeps a broken escape as text; a real server refuses the request instead of guessing.
    return {
      ok: false,
      status: 400,
      syntax: true,
      message: `invalid request: the query string has a malformed percent-encoding ("${malformed}")`,
      problems: [{ location: 'query', message: `has a malformed percent-encoding ("${malformed}")` }],
    };
  }
  const values: Record<'path' | 'query' | 'header', Record<string, unknown>> = { path: {}, query: {}, header: {} };
  for (const parameter of plan.parameters) {
    if (
      parameter.in === 'cookie' ||
      (parameter.in === 'header' && transportHeaders.has(parameter.name.toLowerCase()))
    ) {
      continue;
    }
    const value = readParameter(parameter, request, pathParams);
    const location = `${parameter.in}.${parameter.name}`;
    if (value === undefined) {
      if (parameter.required) {
        problems.push({ location, message: 'is required' });
      }
      continue;
    }
    const unstorable = unstorableValue(value, location);
    if (unstorable) {
      problems.push(unstorable);
      continue;
    }
    values[parameter.in][parameter.name] = value;
    if (parameter.schema) {
      const validate = validators.validatorForSchema(parameter.schema);
      if (!validate(value)) {
        problems.push({
          location,
          message: `${validate.errors?.[0]?.message ?? 'is invalid'} (got ${JSON.stringify(value)})`,
        });
      }
    }
  }
  if (problems.length > 0) {
    return {
      ok: false,
      status: 400,
      message: `invalid request: ${problems.map((p) => `${p.location} ${p.message}`).join('; ')}`,
      problems,
    };
  }

  const raw = request.body;
  const hasBody = raw !== undefined && raw.length > 0;
  if (plan.bodyMediaTypes.length === 0 || !hasBody) {
    if (plan.bodyRequired && !hasBody) {
      return {
        ok: false,
        status: 400,
        message: 'request body is required',
        problems: [{ location: 'body', message: 'is required' }],
      };
    }
    return { ok: true, path: values.path, query: values.query, body: undefined };
  }
  const mediaType = mediaTypeOf(request.headers['content-type']) ?? 'application/json';
  const declared = plan.bodyMediaTypes.find((type) => mediaMatches(type, mediaType));
  if (!declared) {
    return {
      ok: false,
      status: 415,
      message: `content type ${mediaType} is not accepted; use ${plan.bodyMediaTypes.join(' or ')}`,
      problems: [{ location: 'header.content-type', message: `must be ${plan.bodyMediaTypes.join(' or ')}` }],
    };
  }
  const schemaPointer = plan.operation.requestBody?.content[declared] ?? undefined;
  let body: unknown;
  if (/json/i.test(mediaType)) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (error) {
      return {
        ok: false,
        status: 400,
        syntax: true,
        message: `malformed JSON body: ${(error as Error).message}`,
        problems: [{ location: 'body', message: 'is not valid JSON' }],
      };
    }
  } else if (mediaType === 'application/x-www-form-urlencoded') {
    body = formToObject(raw.toString('utf8'), document, schemaPointer ?? undefined);
  } else if (mediaType.startsWith('text/')) {
    body = raw.toString('utf8');
  } else {
    // Files and multipart bodies are accepted as they are: the twin records them, it does not parse them.
    return { ok: true, path: values.path, query: values.query, body: raw, mediaType };
  }
  const unstorable = typeof body === 'string' ? unstorableText(body) : undefined;
  const problem = unstorable ? { location: 'body', message: unstorable } : unstorableValue(body, 'body');
  if (problem) {
    return {
      ok: false,
      status: 400,
      message: `invalid body: ${problem.location} ${problem.message}`,
      problems: [problem],
    };
  }
  if (schemaPointer) {
    const validate = validators.validator(schemaPointer);
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 10).map((error) => ({
        location: `body${error.instancePath}`,
        message:
          error.keyword === 'required'
            ? `requires ${String((error.params as { missingProperty?: string }).missingProperty)}`
            : (error.message ?? 'is invalid'),
      }));
      return {
        ok: false,
        status: 400,
        message: `invalid body: ${errors.map((e) => `${e.location} ${e.message}`).join('; ')}`,
        problems: errors,
      };
    }
  }
  return { ok: true, path: values.path, query: values.query, body, mediaType };
};
