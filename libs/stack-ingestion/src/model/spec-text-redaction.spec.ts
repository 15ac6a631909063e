import { ingestStack } from '../ingest-stack';

// Planted: real in shape, made up here.
const address = 'ceo.private@gmail.com';
const key = '9f8a7b6c5d4e3f2a1b0c';
const password = 's3cr3tPassw0rd';
const phone = '+44 20 7946 0958';
const person = 'Jane Whitfield';
const page = 'https://people.orders.example/~jwhitfield';
const spec = `openapi: 3.1.0
info:
  title: Orders
  version: 1.0.0
  description: Ask ${address} for access.
  contact: { name: ${person}, email: ${address}, url: '${page}' }
servers:
  - url: https://ops:${password}@api.orders.example/api/v2
  - url: https://api.orders.example/api/v2?api_key=${key}
    description: Sandbox, call ${phone}
paths:
  /orders/{orderId}:
    get:
      operationId: getOrder
      summary: One order (support line ${phone})
      externalDocs: { url: 'https://docs.orders.example/?token=${key}', description: docs }
      parameters:
        - name: orderId
          in: path
          required: true
          description: The order, as ${address} names it
          schema: { type: string, format: uuid }
        - name: status
          in: query
          schema: { type: string, enum: [open, closed] }
      responses:
        '200':
          description: The order
          content:
            application/json:
              schema:
                type: object
                properties:
                  description: { type: string, description: 'free text, e.g. from ${address}' }
                  info: { type: object, properties: { owner: { type: string, enum: [${address}] } } }
`;

const ingest = async () => ingestStack({ kind: 'upload', name: 'orders.yaml', content: Buffer.from(spec) });

describe('redacting a spec’s texts at ingest', () => {
  it('leaves no planted secret or personal datum in the stored model, each redaction a located warning', async () => {
    const { model } = await ingest();
    const [service] = model.services;
    const stored = JSON.stringify(service);
    for (const planted of [password, key, phone, 'Whitfield', 'jwhitfield']) {
      expect(stored).not.toContain(planted);
    }
    // The only address left is the enum value a twin must answer with: structure, not text.
    expect(stored.split(address).length - 1).toBe(1);
    expect(service.document).toMatchObject({ paths: { '/orders/{orderId}': { get: { responses: { '200': {} } } } } });
    const pointers = model.warnings.filter((w) => w.message.includes('it is stored as ')).map((w) => w.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/info/description',
        '/info/contact/email',
        '/info/contact/name',
        '/servers/0/url',
        '/servers/1/url',
        '/servers/1/description',
        '/paths/~1orders~1{orderId}/get/summary',
        '/paths/~1orders~1{orderId}/get/externalDocs/url',
        '/paths/~1orders~1{orderId}/get/parameters/0/description',
      ]),
    );
    // The contact's URL keeps its host (whose it is) and loses the path that names the person.
    expect(model.warnings).toContainEqual(
      expect.objectContaining({
        location: 'orders.yaml#/info/contact/url',
        message: "the contact's URL may name a person: it is stored as https://people.orders.example/",
      }),
    );
    expect(service.document.info).toMatchObject({
      contact: { name: '[redacted:name]', url: 'https://people.orders.example/' },
    });
    for (const warning of model.warnings) {
      expect(warning.location).toBe(`orders.yaml#${warning.pointer}`);
      expect(warning.message).not.toContain(address);
      expect(warning.message).not.toContain(person);
    }
  });

  it('changes nothing a twin behaves on: paths, parameter names, enums, formats and the base path', async () => {
    const { model } = await ingest();
    const [service] = model.services;
    expect(service.servers).toEqual([
      'https://api.orders.example/api/v2',
      'https://api.orders.example/api/v2?api_key=[redacted:credential]',
    ]);
    // The twin's base path is the first server's path.
    expect(new URL(service.servers[0]).pathname).toBe('/api/v2');
    const [operation] = service.operations;
    expect(operation).toMatchObject({ id: 'getOrder', method: 'get', path: '/orders/{orderId}' });
    expect(operation.summary).toBe('One order (support line [redacted:phone])');
    expect(operation.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['orderId', 'path', true],
      ['status', 'query', false],
    ]);
    expect(operation.parameters[0].description).toBe('The order, as redacted-email@gmail.com names it');
    const parameters = (service.document.paths as Record<string, { get: { parameters: unknown[] } }>)[
      '/orders/{orderId}'
    ].get.parameters;
    expect(parameters).toEqual([
      expect.objectContaining({ schema: { type: 'string', format: 'uuid' } }),
      expect.objectContaining({ schema: { type: 'string', enum: ['open', 'closed'] } }),
    ]);
  });

  it('keeps a contact that reads as a team or a company, and its page, as written', async () => {
    const teamSpec = spec.replace(
      `contact: { name: ${person}, email: ${address}, url: '${page}' }`,
      `contact: { name: 'Orders API Team', url: 'https://orders.example/support' }`,
    );
    expect(teamSpec).not.toBe(spec);
    const { model } = await ingestStack({ kind: 'upload', name: 'orders.yaml', content: Buffer.from(teamSpec) });
    expect(model.services[0].document.info).toMatchObject({
      contact: { name: 'Orders API Team', url: 'https://orders.example/support' },
    });
    expect(model.warnings.filter((w) => w.pointer.startsWith('/info/contact'))).toEqual([]);
  });
});
