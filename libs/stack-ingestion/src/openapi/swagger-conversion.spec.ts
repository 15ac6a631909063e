import { convertSwagger } from './swagger-conversion';

describe('convertSwagger', () => {
  it('requires the request body where a formData field is required, and only there', async () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'chat', version: '1' },
      consumes: ['application/x-www-form-urlencoded'],
      parameters: { channel: { in: 'formData', name: 'channel', type: 'string', required: true } },
      paths: {
        '/chat.postMessage': {
          post: {
            parameters: [{ in: 'formData', name: 'text', type: 'string', required: true }],
            responses: { 200: { description: 'ok' } },
          },
        },
        '/chat.delete': {
          parameters: [{ $ref: '#/parameters/channel' }],
          post: { parameters: [], responses: { 200: { description: 'ok' } } },
        },
        '/admin.apps.approve': {
          post: {
            parameters: [{ in: 'formData', name: 'app_id', type: 'string' }],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    };
    const openapi = (await convertSwagger('chat.json', swagger)) as {
      paths: Record<string, { post: { requestBody?: { required?: boolean } } }>;
    };
    expect(openapi.paths['/chat.postMessage'].post.requestBody?.required).toBe(true);
    expect(openapi.paths['/chat.delete'].post.requestBody?.required).toBe(true);
    expect(openapi.paths['/admin.apps.approve'].post.requestBody?.required).toBeFalsy();
  });
});

describe('convertSwagger with draft 4 tuples', () => {
  const swagger = {
    swagger: '2.0',
    info: { title: 'chat', version: '1' },
    produces: ['application/json'],
    definitions: {
      message: { type: 'object', properties: { text: { type: 'string' } } },
      channel: {
        type: 'object',
        properties: {
          latest: { items: [{ $ref: '#/definitions/message' }, { type: 'null' }] },
          role: { items: [{ type: 'null' }, { enum: ['owner', 'admin'], type: 'string' }] },
          pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
          preview: { type: 'null' },
        },
      },
    },
    paths: {
      '/pins.list': {
        get: {
          responses: {
            200: {
              description: 'ok',
              schema: {
                items: [
                  { type: 'object', title: 'a' },
                  { type: 'object', title: 'b' },
                ],
              },
              examples: { 'application/json': { items: [{ type: 'message' }, { type: 'file' }] } },
            },
          },
        },
      },
    },
  };
  type Converted = {
    components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    paths: Record<string, { get: { responses: Record<string, { content: Record<string, Record<string, unknown>> }> } }>;
  };

  it('turns a typeless list of positions into the alternatives of one value, not an array of them', async () => {
    const openapi = (await convertSwagger('chat.json', structuredClone(swagger))) as unknown as Converted;
    const { latest, role } = openapi.components.schemas.channel.properties;
    expect(latest.items).toBeUndefined();
    expect(latest.anyOf).toEqual([{ $ref: '#/components/schemas/message' }, { enum: [null] }]);
    expect(role.items).toBeUndefined();
    expect(role.anyOf).toHaveLength(2);
    const listed = openapi.paths['/pins.list'].get.responses[200].content['application/json'];
    expect((listed.schema as { anyOf: unknown[] }).anyOf).toEqual([
      { type: 'object', title: 'a' },
      { type: 'object', title: 'b' },
    ]);
  });

  it('keeps a property typed null null only: the converter would make it a bare nullable, which allows any value', async () => {
    const openapi = (await convertSwagger('chat.json', structuredClone(swagger))) as unknown as Converted;
    expect(openapi.components.schemas.channel.properties.preview).toEqual({ enum: [null] });
  });

  it('leaves a declared array and examples as they are', async () => {
    const openapi = (await convertSwagger('chat.json', structuredClone(swagger))) as unknown as Converted;
    const { pair } = openapi.components.schemas.channel.properties;
    expect(pair.type).toBe('array');
    expect(pair.anyOf).toBeUndefined();
    const listed = openapi.paths['/pins.list'].get.responses[200].content['application/json'];
    expect(JSON.stringify(listed)).toContain('"items":[{"type":"message"},{"type":"file"}]');
  });
});
