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
