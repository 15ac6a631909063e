import { DocumentValidators } from '@libs/openapi-schemas';

import { ErrorFacts, shapeErrorBody } from './error-body';

const shape = (schema: object, base: unknown, facts: Partial<ErrorFacts> = {}) => {
  const document = { openapi: '3.1.0', components: { schemas: { E: schema } } };
  const validate = new DocumentValidators(document, 'openapi-3.1').validator('/components/schemas/E');
  const body = shapeErrorBody(
    document,
    { $ref: '#/components/schemas/E' },
    base,
    {
      status: 422,
      code: 'invalid_request',
      message: 'invalid body: body/amount must be integer',
      problems: [{ location: 'body/amount', message: 'must be integer' }],
      ...facts,
    },
    () => ({}),
    (value) => validate(value),
  );
  return { body, valid: validate(body) };
};

describe(shapeErrorBody.name, () => {
  it('fills JSON:API errors: the status as a string, the pointer in source, one item per problem', () => {
    const schema = {
      type: 'object',
      required: ['errors'],
      properties: {
        errors: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              title: { type: 'string' },
              detail: { type: 'string' },
              source: { type: 'object', properties: { pointer: { type: 'string' } } },
            },
          },
        },
      },
    };
    const base = { errors: [{ status: 'quo', title: 'vobis', detail: 'lorem', source: { pointer: 'x' } }, {}] };
    expect(shape(schema, base)).toEqual({
      body: {
        errors: [
          {
            status: '422',
            title: 'Unprocessable Entity',
            detail: 'amount must be integer',
            source: { pointer: '/amount' },
          },
        ],
      },
      valid: true,
    });
  });

  it('answers a refused argument with a code of the enum that means no other failure, and a refused token with one that does', () => {
    const schema = {
      type: 'object',
      required: ['ok', 'error'],
      properties: {
        ok: { type: 'boolean' },
        error: { type: 'string', enum: ['message_not_found', 'not_authed', 'invalid_auth', 'invalid_arg_name'] },
      },
    };
    expect(shape(schema, { ok: false, error: 'message_not_found' }, { status: 400 }).body).toMatchObject({
      error: 'invalid_arg_name',
    });
    const refused = { status: 401, code: 'unauthorized', message: 'the token is not valid', problems: [] };
    expect(shape(schema, { ok: false, error: 'message_not_found' }, refused).body).toMatchObject({
      error: 'invalid_auth',
    });
  });

  it('keeps an OAuth-style error code a free string, and a word enum of `status` as a code meaning the same', () => {
    const schema = {
      type: 'object',
      required: ['error'],
      properties: {
        error: { type: 'string' },
        error_description: { type: 'string' },
        status: { type: 'string', enum: ['INVALID_ARGUMENT', 'NOT_FOUND', 'INTERNAL'] },
      },
    };
    const base = { error: 'x', error_description: 'y', status: 'INTERNAL' };
    expect(shape(schema, base, { status: 404, code: 'not_found', message: 'no such thing', problems: [] })).toEqual({
      body: { error: 'not_found', error_description: 'no such thing', status: 'NOT_FOUND' },
      valid: true,
    });
  });

  it('puts the status’s reason phrase in a field whose example is one written as a code (DigitalOcean’s `id`)', () => {
    const schema = {
      type: 'object',
      required: ['id', 'message'],
      properties: {
        id: { type: 'string', example: 'not_found', description: 'A short identifier of the HTTP status code.' },
        message: { type: 'string' },
        request_id: { type: 'string' },
      },
    };
    const base = { id: 'not_found', message: 'lorem', request_id: 'x' };
    expect(shape(schema, base, { status: 400 })).toEqual({
      body: { id: 'bad_request', message: 'invalid body: body/amount must be integer' },
      valid: true,
    });
    expect(shape(schema, base, { status: 404, code: 'not_found', message: 'no key 5' }).body).toEqual({
      id: 'not_found',
      message: 'no key 5',
    });
    const upper = { ...schema, properties: { ...schema.properties, id: { type: 'string', example: 'NOT_FOUND' } } };
    expect(shape(upper, base, { status: 422 }).body).toMatchObject({ id: 'UNPROCESSABLE_ENTITY' });
  });

  it('never breaks the schema: a change that would not validate is left out', () => {
    const schema = {
      type: 'object',
      required: ['message', 'code'],
      properties: { message: { type: 'string', maxLength: 5 }, code: { type: 'integer', maximum: 100 } },
    };
    expect(shape(schema, { message: 'abc', code: 7 })).toEqual({ body: { message: 'abc', code: 7 }, valid: true });
  });
});
