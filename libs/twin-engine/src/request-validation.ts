import type { ValidateFunction } from 'ajv';

import { DocumentValidators } from '@libs/openapi-schemas';

import { admitsExactInteger, schemaAtPath, withinExactBounds } from './exact-bounds';
import { exactIntegersIn, parseExact, withNearestNumbers } from './exact-integers';
import { formBodyReadings, formEncodingOf, multipartParts } from './form-bodies';
import { OperationPlan, ParameterPlan } from './operation-plan';
import { BracketLimitError, coerceReading, parameterReadings } from './parameter-serialisation';
import { TextTree, viewOf } from './schema-coercion';
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

/** Headers that transports and clients own; a spec listing them does not make a missing one the caller's fault. */
const transportHeaders = new Set(['content-type', 'accept', 'authorization', 'content-length', 'user-agent', 'host']);

type Problem = { location: string; message: string };

const schemaOfPointer = (pointer: string): unknown => ({
  $ref: `#${pointer.split('/').map(encodeURIComponent).join('/')}`,
});

/**
 * Whether the schema at a place in a value takes integers only: there a number beyond 2^53 that no box keeps exact
 * would be stored as another integer. Where it takes any number (or says nothing), that number is the double sent.
 */
const integerOnly =
  (document: unknown, schema: unknown) =>
  (steps: readonly string[]): boolean => {
    const { types } = viewOf(document, schemaAtPath(document, schema, steps));
    return types.includes('integer') && !types.includes('number');
  };

/** A parameter declared an integer, sent as an integer literal JavaScript cannot hold exactly. */
const isExactInteger = (parameter: ParameterPlan, value: unknown): boolean =>
  parameter.types.includes('integer') &&
  typeof value === 'string' &&
  /^-?\d+$/.test(value) &&
  !Number.isSafeInteger(Number(value));

/**
 * A parameter's value: the first of its readings (see `parameterReadings`) that is storable and valid, else the
 * problem with the first. Undefined value and problem: the parameter was not sent.
 */
const readParameter = (
  parameter: ParameterPlan,
  request: TwinRequest,
  pathParams: Record<string, string>,
  validators: DocumentValidators,
  document: unknown,
): { value?: unknown; problem?: Problem } => {
  const location = `${parameter.in}.${parameter.name}`;
  let readings: TextTree[];
  try {
    readings = parameterReadings(parameter, request, pathParams, document);
  } catch (error) {
    if (error instanceof BracketLimitError) {
      return { problem: { location, message: `is past the decoder's bounds: ${error.message}` } };
    }
    throw error;
  }
  if (readings.length === 0) {
    return parameter.required ? { problem: { location, message: 'is required' } } : {};
  }
  const validate = parameter.schema ? validators.validatorForSchema(parameter.schema) : undefined;
  let first: Problem | undefined;
  for (const reading of readings) {
    const value = coerceReading(document, parameter, reading);
    const unstorable = unstorableValue(value, location, integerOnly(document, parameter.schema));
    if (unstorable) {
      first ??= unstorable;
    } else if (!validate || validate(value)) {
      return { value };
    } else if (isExactInteger(parameter, value) && validate(Number(value))) {
      // An integer beyond 2^53 is text on the wire: its bounds are checked on its digits and the twin keeps the
      // digits it was sent (an id to look up, a page past the end), never a rounded neighbour.
      const digits = value as string;
      if (!withinExactBounds(document, parameter.schema, digits)) {
        first ??= { location, message: `is outside the range of integers its schema allows (got ${digits})` };
        continue;
      }
      return { value };
    } else {
      first ??= {
        location,
        message: `${validate.errors?.[0]?.message ?? 'is invalid'} (got ${JSON.stringify(value)})`,
      };
    }
  }
  return { problem: first };
};

/** The body's text as a form (urlencoded or multipart), read every way it may be meant; undefined if not a form. */
const formReadings = (
  plan: OperationPlan,
  request: TwinRequest,
  raw: Buffer,
  mediaType: string,
  declared: string,
  document: unknown,
): unknown[] | undefined => {
  const form =
    mediaType === 'application/x-www-form-urlencoded'
      ? raw.toString('utf8')
      : mediaType === 'multipart/form-data'
        ? multipartParts(raw, request.headers['content-type'] ?? '')
        : undefined;
  if (form === undefined) {
    return undefined;
  }
  const schemaPointer = plan.operation.requestBody?.content[declared] ?? undefined;
  return formBodyReadings(document, schemaPointer, formEncodingOf(document, plan.operation.pointer, declared), form);
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
  const values: Record<'path' | 'query' | 'header' | 'cookie', Record<string, unknown>> = {
    path: {},
    query: {},
    header: {},
    cookie: {},
  };
  for (const parameter of plan.parameters) {
    if (parameter.in === 'header' && transportHeaders.has(parameter.name.toLowerCase())) {
      continue;
    }
    const { value, problem } = readParameter(parameter, request, pathParams, validators, document);
    if (problem) {
      problems.push(problem);
    } else if (value !== undefined) {
      values[parameter.in][parameter.name] = value;
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
  // An empty form sent as one (its Content-Type given) is a form without fields, judged as such, not a missing body: a
  // server reading it finds its required fields absent (Twilio refuses `POST /Workspaces` without `FriendlyName`).
  const emptyForm =
    raw !== undefined && raw.length === 0 && formMediaType.test(mediaTypeOf(request.headers['content-type']) ?? '');
  const hasBody = raw !== undefined && (raw.length > 0 || emptyForm);
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
  let readings: unknown[];
  if (/json/i.test(mediaType)) {
    try {
      readings = [parseExact(raw.toString('utf8'))];
    } catch (error) {
      return {
        ok: false,
        status: 400,
        syntax: true,
        message: `malformed JSON body: ${(error as Error).message}`,
        problems: [{ location: 'body', message: 'is not valid JSON' }],
      };
    }
  } else if (mediaType.startsWith('text/')) {
    readings = [raw.toString('utf8')];
  } else {
    let form: unknown[] | undefined;
    try {
      form = formReadings(plan, request, raw, mediaType, declared, document);
    } catch (error) {
      if (error instanceof BracketLimitError) {
        return {
          ok: false,
          status: 400,
          message: `invalid body: the form is past the decoder's bounds: ${error.message}`,
          problems: [{ location: 'body', message: `is past the decoder's bounds: ${error.message}` }],
        };
      }
      throw error;
    }
    if (!form) {
      // Files and other bodies are accepted as they are: the twin records them, it does not parse them.
      return { ok: true, path: values.path, query: values.query, body: raw, mediaType };
    }
    readings = form;
  }
  // Storable first: a body nested without bound must not reach the validator.
  const unstorable = typeof readings[0] === 'string' ? unstorableText(readings[0]) : undefined;
  const bodySchema = schemaPointer ? schemaOfPointer(schemaPointer) : undefined;
  const problem = unstorable
    ? { location: 'body', message: unstorable }
    : unstorableValue(readings[0], 'body', integerOnly(document, bodySchema));
  if (problem) {
    return {
      ok: false,
      status: 400,
      message: `invalid body: ${problem.location} ${problem.message}`,
      problems: [problem],
    };
  }
  const validate = schemaPointer ? validators.validator(schemaPointer) : undefined;
  // A form may be meant more than one way (a joined list the spec did not declare joined): the first valid wins.
  // The validator knows no boxes: it judges each reading with their nearest numbers (the reading itself when it holds
  // none, so one walk per reading tells both).
  let body: unknown = readings[0];
  let boxed = false;
  if (validate) {
    let valid: { reading: unknown; nearest: unknown } | undefined;
    for (const reading of readings) {
      const nearest = withNearestNumbers(reading);
      if (validate(nearest)) {
        valid = { reading, nearest };
        break;
      }
    }
    if (!valid) {
      validate(withNearestNumbers(readings[0]));
      return invalidBody(validatorProblems(validate.errors));
    }
    body = valid.reading;
    boxed = valid.nearest !== valid.reading;
  }
  if (boxed) {
    const outside = outsideExactBounds(body, schemaPointer as string, document);
    if (outside.length > 0) {
      return invalidBody(outside.slice(0, 10));
    }
  }
  return { ok: true, path: values.path, query: values.query, body, mediaType };
};

const formMediaType = /^application\/x-www-form-urlencoded$/i;

const invalidBody = (problems: Problem[]): InvalidRequest => ({
  ok: false,
  status: 400,
  message: `invalid body: ${problems.map((e) => `${e.location} ${e.message}`).join('; ')}`,
  problems,
});

/** The property a body must not have, named in the problem's place: the client learns which field to drop. */
const unknownProperty = (error: NonNullable<ValidateFunction['errors']>[number]): string | undefined =>
  error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties'
    ? ((error.params as { additionalProperty?: string; unevaluatedProperty?: string }).additionalProperty ??
      (error.params as { unevaluatedProperty?: string }).unevaluatedProperty)
    : undefined;

const validatorProblems = (errors: ValidateFunction['errors']): Problem[] =>
  (errors ?? []).slice(0, 10).map((error) => {
    const unknown = unknownProperty(error);
    return {
      location: `body${error.instancePath}${unknown === undefined ? '' : `/${unknown.replace(/~/g, '~0').replace(/\//g, '~1')}`}`,
      message:
        error.keyword === 'required'
          ? `requires ${String((error.params as { missingProperty?: string }).missingProperty)}`
          : unknown !== undefined
            ? 'is not a property this body may have'
            : (error.message ?? 'is invalid'),
    };
  });

/**
 * The integers beyond 2^53 of a valid body (boxed by `parseExact`, or from a form's digits) that lie outside their
 * bounds, int64's and their schema's, checked on their digits as for parameters: the validator judged their nearest
 * numbers only. The body kept is the one sent, boxes and all, so the record holds the digits.
 */
const outsideExactBounds = (body: unknown, schemaPointer: string, document: unknown): Problem[] => {
  const schema = schemaOfPointer(schemaPointer);
  return exactIntegersIn(body)
    .filter(({ path, value }) => !admitsExactInteger(document, schemaAtPath(document, schema, path), value.digits))
    .map(({ path, value }) => ({
      location: ['body', ...path].join('/'),
      message: `is outside the range of integers its schema allows (got ${value.digits})`,
    }));
};
