import { STATUS_CODES } from 'node:http';

import { flattenSchema, Schema, schemaTypes } from '@libs/openapi-schemas';

/** What went wrong, in the twin's words: the body is this, said in the spec's error shape. */
export interface ErrorFacts {
  status: number;
  /** The twin's own code (`invalid_request`, `not_found`, …): placed where the schema keeps a code or type. */
  code: string;
  message: string;
  /** Each problem with where it is (`body/lines/0/quantity`, `query.limit`), for `errors[]`-style lists. */
  problems: { location: string; message: string }[];
}

type Path = (string | number)[];
type Edit = { path: Path; remove: true } | { path: Path; value: unknown };

/**
 * Turns a body synthesized from the declared error schema into the error a client of that API would read: the
 * message where the schema keeps messages (`message`, `Message`, `error.message`, `detail`, `errors[].message`), the
 * HTTP status in integer `status`/`statusCode`/`code` fields, the code in `type`/`code`/`error` (the `const`, else the
 * enum value that means the same, else ours), and one `errors[]` item per real problem (none invented). Optional
 * fields that say nothing about this error are left out: a random `payment_intent` or `doc_url` in an error is made
 * up. Each change is kept only if the body still validates, so the answer never breaks its own schema.
 */
export const shapeErrorBody = (
  document: unknown,
  schema: unknown,
  base: unknown,
  facts: ErrorFacts,
  sample: (schema: Schema) => unknown,
  validate: (value: unknown) => boolean,
): unknown => {
  const edits: Edit[] = [];
  planValue(document, schema, base, facts, [], edits, sample, 0);
  let body = structuredClone(base);
  const validBefore = validate(body);
  for (const edit of edits) {
    const next = applyEdit(body, edit);
    // A base that did not validate (a schema the synthesizer cannot satisfy) cannot get worse by carrying the facts.
    if (!validBefore || validate(next)) {
      body = next;
    }
  }
  return body;
};

/**
 * An error schema borrowed for a status the operation does not declare, with its code fields' `const`s lifted: a
 * problem type pinned to one problem (`…/problems/not-found`) says that problem, and a 401 or a 405 borrowing the shape
 * would contradict its own status. A URI-typed one becomes `about:blank` (RFC 9457: nothing beyond the status), any
 * other the twin's code. Undefined when the schema pins no code.
 */
export const withoutPinnedCodes = (document: unknown, schema: unknown): Schema | undefined => {
  const flat = flattenSchema(document, schema);
  const properties = flat.properties as Record<string, unknown> | undefined;
  if (!properties) {
    return undefined;
  }
  let lifted = false;
  const next: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(properties)) {
    const property = flattenSchema(document, raw);
    if (codeNames.has(normalised(name)) && typeof property.const === 'string') {
      const { const: pinned, ...rest } = property;
      next[name] = { ...rest, type: 'string', ...(/^[a-z][a-z0-9+.-]*:/i.test(pinned) ? { format: 'uri' } : {}) };
      lifted = true;
    } else {
      next[name] = raw;
    }
  }
  return lifted ? { ...flat, properties: next } : undefined;
};

const maxDepth = 4;

const normalised = (name: string): string => name.replace(/[^a-z0-9]/gi, '').toLowerCase();

const messageNames = new Set([
  'message',
  'msg',
  'errormessage',
  'errordescription',
  'detail',
  'details',
  'description',
  'title',
  'summary',
  'errorsummary',
  'text',
]);
const codeNames = new Set(['type', 'code', 'errorcode', 'errortype', 'error', 'kind', 'reason']);
const statusNames = new Set(['status', 'statuscode', 'httpstatus', 'httpstatuscode', 'httpcode', 'code']);
const locationNames = new Set(['field', 'param', 'parameter', 'pointer', 'path', 'location', 'property', 'attribute']);

/** Objects inside an error that are about the error (`error.message`, JSON:API's `source.pointer`); others are data. */
const errorObjectNames = /^(error|err|fault|problem|exception|source|errordetails?|details?)$/;

type Role = 'message' | 'code' | 'status' | 'location' | 'object' | 'problems' | undefined;

const typesOf = (schema: Schema, value: unknown): string[] => {
  const declared = schemaTypes(schema).filter((t) => t !== 'null');
  if (declared.length > 0) {
    return declared;
  }
  if (schema.properties) {
    return ['object'];
  }
  if (schema.items) {
    return ['array'];
  }
  return value === undefined || value === null ? [] : [Array.isArray(value) ? 'array' : typeof value];
};

const roleOf = (document: unknown, name: string, schema: Schema, value: unknown): Role => {
  const key = normalised(name);
  const types = typesOf(schema, value);
  const numeric = types.includes('integer') || types.includes('number');
  if (statusNames.has(key) && numeric) {
    return 'status';
  }
  if (types.includes('object')) {
    return 'object';
  }
  if (types.includes('array')) {
    return isProblemList(document, key, schema, value) ? 'problems' : undefined;
  }
  if (!types.includes('string') && types.length > 0) {
    return undefined;
  }
  if (statusNames.has(key) && key !== 'code') {
    // JSON:API spells the status as a string ("422"); an enum of words (`NOT_FOUND`) is a code in all but name.
    return schema.enum === undefined ? 'status' : 'code';
  }
  if (messageNames.has(key) && schema.format === undefined && schema.enum === undefined && schema.const === undefined) {
    return 'message';
  }
  if (codeNames.has(key)) {
    return 'code';
  }
  if (locationNames.has(key)) {
    return 'location';
  }
  if (reasonCodeStyle(schema) !== undefined) {
    return 'code';
  }
  return undefined;
};

/** HTTP's reason phrases of errors as codes (`not_found`, `bad_request`), each with its status. */
const reasonCodes = new Map(
  Object.entries(STATUS_CODES)
    .filter(([status]) => Number(status) >= 400)
    .map(([status, phrase]) => [(phrase ?? '').toLowerCase().replace(/[^a-z]+/g, '_'), Number(status)]),
);

/**
 * Whether a field's example is an HTTP reason phrase written as a code (DigitalOcean's error `id`: "not_found", "a
 * short identifier corresponding to the HTTP status code"), and in which case: such a field names the status, so
 * every error gets its own status's phrase there rather than the example's.
 */
const reasonCodeStyle = (schema: Schema): 'lower' | 'upper' | undefined => {
  const example = schema.example;
  if (typeof example !== 'string' || schema.enum !== undefined || schema.const !== undefined) {
    return undefined;
  }
  if (!/^[a-z]+(_[a-z]+)*$/i.test(example) || !reasonCodes.has(example.toLowerCase())) {
    return undefined;
  }
  return example === example.toUpperCase() ? 'upper' : example === example.toLowerCase() ? 'lower' : undefined;
};

/** A list of errors: named so, or of items (or strings) that carry messages. */
const isProblemList = (document: unknown, key: string, schema: Schema, value: unknown): boolean => {
  const items = flattenSchema(document, schema.items ?? {});
  const template: unknown = Array.isArray(value) ? value[0] : undefined;
  const itemKeys = Object.keys(
    (items.properties as Record<string, unknown> | undefined) ??
      (template && typeof template === 'object' ? template : {}),
  );
  if (itemKeys.some((k) => messageNames.has(normalised(k)) || locationNames.has(normalised(k)))) {
    return true;
  }
  return /^(errors|problems|messages|violations|validationerrors|invalidparams|fielderrors)$/.test(key);
};

const planValue = (
  document: unknown,
  raw: unknown,
  value: unknown,
  facts: ErrorFacts,
  path: Path,
  edits: Edit[],
  sample: (schema: Schema) => unknown,
  depth: number,
): void => {
  const schema = flattenSchema(document, raw);
  if (Array.isArray(value) && depth === 0) {
    edits.push({ path, value: problemItems(document, schema, value, facts, sample) });
    return;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) || depth >= maxDepth) {
    return;
  }
  const record = value as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const keys = [...new Set([...Object.keys(properties), ...Object.keys(record)])].filter((k) => k in record);
  const hasDetail = keys.some((k) => ['detail', 'message', 'errormessage'].includes(normalised(k)));
  for (const key of keys) {
    const property = flattenSchema(document, properties[key] ?? {});
    const role = roleOf(document, key, property, record[key]);
    const at = [...path, key];
    switch (role) {
      case 'status':
        edits.push({ path: at, value: typeof record[key] === 'string' ? String(facts.status) : facts.status });
        break;
      case 'message':
        edits.push({
          path: at,
          value: normalised(key) === 'title' && hasDetail ? (STATUS_CODES[facts.status] ?? facts.code) : facts.message,
        });
        break;
      case 'code': {
        const code = codeFor(property, facts);
        if (code !== undefined) {
          edits.push({ path: at, value: code });
        }
        break;
      }
      case 'location':
        if (facts.problems[0]) {
          edits.push({ path: at, value: locationText(key, facts.problems[0]) });
        } else if (!required.has(key)) {
          edits.push({ path: at, remove: true });
        }
        break;
      case 'object':
        if (errorObjectNames.test(normalised(key))) {
          planValue(document, property, record[key], facts, at, edits, sample, depth + 1);
        } else if (!required.has(key)) {
          edits.unshift({ path: at, remove: true });
        }
        break;
      case 'problems':
        edits.push({ path: at, value: problemItems(document, property, record[key], facts, sample) });
        break;
      default:
        if (!required.has(key)) {
          // Leaving out first: later edits are checked against a body that no longer carries made-up fields.
          edits.unshift({ path: at, remove: true });
        }
    }
  }
};

/** One item per real problem, in the item schema's shape; none when there are none and the schema allows that. */
const problemItems = (
  document: unknown,
  raw: unknown,
  value: unknown,
  facts: ErrorFacts,
  sample: (schema: Schema) => unknown,
): unknown[] => {
  const schema = flattenSchema(document, raw);
  const itemSchema = flattenSchema(document, schema.items ?? {});
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const problems =
    facts.problems.length > 0 || minItems === 0 ? facts.problems : [{ location: '', message: facts.message }];
  const template: unknown = Array.isArray(value) && value.length > 0 ? value[0] : sample(itemSchema);
  return problems.map((problem) => {
    const text = problem.location ? `${fieldOf(problem)} ${problemText(problem)}`.trim() : problem.message;
    if (!template || typeof template !== 'object' || Array.isArray(template)) {
      return typeof template === 'string' || template === undefined ? text : template;
    }
    const item = structuredClone(template) as Record<string, unknown>;
    const edits: Edit[] = [];
    planValue(document, itemSchema, item, { ...facts, message: text, problems: [problem] }, [], edits, sample, 1);
    return edits.reduce<unknown>((body, edit) => applyEdit(body, edit), item);
  });
};

/** The field a problem is about: `amount`, `lines.0.quantity`, `limit` (from `body/lines/0/quantity`, `query.limit`). */
const fieldOf = (problem: { location: string; message: string }): string => {
  const missing = /^requires (.+)$/.exec(problem.message)?.[1];
  const located = problem.location
    .replace(/^(body|path|query|header|cookie)[./]?/, '')
    .split('/')
    .filter(Boolean)
    .join('.');
  return [located, missing].filter(Boolean).join('.') || problem.location;
};

const problemText = (problem: { message: string }): string =>
  /^requires /.test(problem.message) ? 'is required' : problem.message;

const locationText = (key: string, problem: { location: string; message: string }): string => {
  const field = fieldOf(problem);
  return normalised(key) === 'pointer' ? `/${field.split('.').join('/')}` : field;
};

/** Words each of the twin's codes shares with the codes APIs use for the same kind of failure. */
const meanings: Record<string, string[]> = {
  invalid_request: ['invalid', 'request', 'validation', 'bad', 'param', 'parameter', 'unprocessable', 'malformed'],
  not_found: ['not', 'found', 'notfound', 'missing', 'unknown', 'nosuch', 'exist'],
  unauthorized: ['unauthorized', 'unauthorised', 'unauthenticated', 'authentication', 'auth', 'credential', 'token'],
  forbidden: ['forbidden', 'permission', 'access', 'denied', 'authorization'],
  rate_limited: ['rate', 'limit', 'throttle', 'throttled', 'quota', 'many'],
  conflict: ['conflict', 'exists', 'duplicate', 'already', 'idempotency', 'state'],
  server_error: ['server', 'internal', 'api', 'unavailable', 'timeout', 'unexpected', 'service'],
};

const meaningOf = (code: string, status: number): string => {
  if (code in meanings) {
    return code;
  }
  if (status === 404) {
    return 'not_found';
  }
  if (status === 401) {
    return 'unauthorized';
  }
  if (status === 403) {
    return 'forbidden';
  }
  if (status === 409) {
    return 'conflict';
  }
  if (status === 429) {
    return 'rate_limited';
  }
  return status >= 500 ? 'server_error' : 'invalid_request';
};

const wordsOf = (value: string): string[] =>
  value
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);

/**
 * The value of a code or type field: its `const`; among its enum, the value meaning what happened (`not_found` for
 * a 404, `invalid_request_error` for a validation failure, and for a 4xx with no closer value the one meaning an
 * invalid request, never a server error); a free string gets the twin's code. A URI-typed problem `type` without a
 * const is `about:blank`, as RFC 9457 says when there is no more specific type.
 */
const codeFor = (schema: Schema, facts: ErrorFacts): unknown => {
  if (schema.const !== undefined) {
    return schema.const;
  }
  const meaning = meaningOf(facts.code, facts.status);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v): v is string => typeof v === 'string');
    const score = (value: string, wanted: string): number =>
      wordsOf(value).filter((w) => meanings[wanted].includes(w) || wordsOf(facts.code).includes(w)).length;
    const fallbacks = facts.status >= 500 ? [meaning, 'server_error'] : [meaning, 'invalid_request'];
    for (const wanted of fallbacks) {
      const best = values
        .map((value) => ({ value, score: score(value, wanted) }))
        .filter((candidate) => candidate.score > 0 && (facts.status >= 500 || !isServerCode(candidate.value)))
        .sort((a, b) => b.score - a.score || foreignWords(a.value, wanted) - foreignWords(b.value, wanted))[0];
      if (best) {
        return best.value;
      }
    }
    return facts.status >= 500 ? undefined : values.find((value) => !isServerCode(value));
  }
  if (schema.format === 'uri' || schema.format === 'uri-reference') {
    return 'about:blank';
  }
  if (schema.pattern !== undefined || schema.format !== undefined) {
    return undefined;
  }
  const style = reasonCodeStyle(schema);
  if (style !== undefined) {
    const phrase = (STATUS_CODES[facts.status] ?? '').toLowerCase().replace(/[^a-z]+/g, '_');
    return phrase === '' ? facts.code : style === 'upper' ? phrase.toUpperCase() : phrase;
  }
  return facts.code;
};

/** Words that qualify any failure (an invalid token, a bad request), so they say nothing of which one it is. */
const qualifiers = new Set(['invalid', 'bad', 'not']);

/**
 * How many of a code's words mean another failure than the one wanted: among equally close values, `invalid_auth`
 * says the credential was refused, so a refused argument is `invalid_arg_name`, never an authentication failure.
 */
const foreignWords = (value: string, wanted: string): number =>
  wordsOf(value).filter(
    (word) =>
      !qualifiers.has(word) &&
      !meanings[wanted].includes(word) &&
      Object.entries(meanings).some(([meaning, words]) => meaning !== wanted && words.includes(word)),
  ).length;

const isServerCode = (value: string): boolean =>
  wordsOf(value).some((w) => ['server', 'internal', 'api', 'unavailable', 'timeout'].includes(w));

const applyEdit = (body: unknown, edit: Edit): unknown => {
  if (edit.path.length === 0) {
    return 'value' in edit ? edit.value : body;
  }
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let target = copy;
  for (const segment of edit.path.slice(0, -1)) {
    const next = target[segment];
    if (!next || typeof next !== 'object') {
      return body;
    }
    target = next as Record<string | number, unknown>;
  }
  const last = edit.path[edit.path.length - 1];
  if ('remove' in edit) {
    delete target[last];
  } else {
    target[last] = edit.value;
  }
  return copy;
};
